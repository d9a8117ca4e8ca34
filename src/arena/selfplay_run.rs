//! Self-play runs: plans the games (seeds, who plays whom, shard), plays the missing ones on
//! `jobs` threads, and keeps the folder up to date after every game, so a run killed at any
//! point (`kill -9` included) resumes with no game lost or counted twice.
//!
//! A self-play folder holds `selfplay.toml` (program, the full config, each engine's resolved
//! settings and the checksum of every network it loads), `games.csv` (one row per finished
//! game, rewritten atomically: the checkpoint), `sgf/game-NNNNN.sgf` and
//! `records/game-NNNNN.akr` (the game's training records, format version 2 concatenated,
//! their CRC-32 in the game's row). A game's files are written before its row, so a row
//! always has its files.
//!
//! [`build_dataset`] turns one or more folders (a run's shards, or several runs) into a
//! dataset that `train`, `eval` and `dataset stats/show` read like any other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::selfplay::{
    GamePlan, GameRules, SelfplayGame, SelfplayRow, build_selfplay_engine, play,
};
use crate::dataset::build::{
    BuildConfig, Manifest, OUTPUT_KIND, SplitBy, SplitCounts, assign_splits_by_id, commit_dir,
    fingerprint_of,
};
use crate::dataset::format::{self, SEARCH_RECORD_SIZE, SplitWriter, VERSION_SEARCH};
use crate::dataset::gameset::{game_hash, hash_text};
use crate::dataset::{Split, format::decode};
use crate::runs::folder::{GameRow, GamesDir, Opened, RunConfig, RunHeader, Schedule, Shard};
use crate::util::fsio::{write_atomic, write_atomic_with};
use crate::util::progress::progress_bar;
use crate::util::rng::FastRng;

/// The output kind of a self-play folder (its marker file).
pub const SELFPLAY_KIND: &str = "selfplay";
/// Most games one run may plan.
pub const MAX_GAMES: u32 = 1_000_000;

/// Everything a self-play run depends on (`selfplay.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfplayConfig {
    /// Engine specs. One spec plays both colours; with several, game g pairs them round
    /// robin (black = pool[k / n], white = pool[k % n], k = (g - 1) mod n^2).
    pub engines: Vec<String>,
    /// Games in the whole run (all shards together).
    pub games: u32,
    /// Run seed: game g is seeded with stream g of it.
    pub seed: u64,
    /// How each game is played.
    pub rules: GameRules,
    /// Games played at the same time (threads); not part of what a resume must match.
    pub jobs: usize,
    /// This run's share of the games, if sharded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl SelfplayConfig {
    /// Checks the config before any game is played.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.engines.is_empty() {
            bail!("self-play needs at least one engine spec");
        }
        if self.games == 0 || self.games > MAX_GAMES {
            bail!("games {} is not from 1 to {MAX_GAMES}", self.games);
        }
        if self.jobs == 0 || self.jobs > 256 {
            bail!("jobs {} is not from 1 to 256", self.jobs);
        }
        self.rules.validate()
    }

    /// The seed of game `game`.
    pub fn game_seed(&self, game: u32) -> u64 {
        FastRng::for_stream(self.seed, game as u64).next_u64()
    }

    /// Who plays game `game` (1-based), with which seed.
    pub fn plan(&self, game: u32) -> GamePlan {
        let n = self.engines.len() as u32;
        let k = (game - 1) % (n * n);
        GamePlan {
            game,
            seed: self.game_seed(game),
            black: self.engines[(k / n) as usize].clone(),
            white: self.engines[(k % n) as usize].clone(),
            black_player: None,
            opening: Vec::new(),
            opening_name: String::new(),
        }
    }

    /// The games this run plays.
    pub fn planned_games(&self) -> Vec<u32> {
        self.schedule().planned()
    }

    /// Whether `other` plays the same games (only `jobs` and `games` may differ: more games
    /// extend a run). Engines are compared by what they are
    /// ([`crate::search::spec::spec_identity`]: defaults filled in, network folders
    /// resolved), not by their spelling.
    pub fn same_run(&self, other: &SelfplayConfig) -> bool {
        let engines = |c: &SelfplayConfig| -> Vec<String> {
            c.engines
                .iter()
                .map(|e| crate::search::spec::spec_identity(e))
                .collect()
        };
        engines(self) == engines(other)
            && self.seed == other.seed
            && self.rules == other.rules
            && self.shard == other.shard
    }
}

impl RunConfig for SelfplayConfig {
    const KEY: &'static str = "selfplay";
    const FILE: &'static str = "selfplay.toml";
    const KIND: &'static str = SELFPLAY_KIND;
    const COMMENT: &'static str =
        "# akushu self-play run: program and the full resolved configuration";
    const SUBDIRS: &'static [&'static str] = &["sgf", "records"];
    fn specs(&self) -> Vec<&String> {
        self.engines.iter().collect()
    }
    fn schedule(&self) -> Schedule {
        Schedule {
            games: self.games,
            shard: self.shard,
        }
    }
    fn check_same_run(&self, old: &SelfplayConfig, header: &Path) -> anyhow::Result<()> {
        if old.same_run(self) {
            return Ok(());
        }
        bail!(
            "{} holds a different self-play run: resume only with the same engines, seed, \
             rules and shard (more games and other jobs are fine), or use a new --out folder",
            header.display()
        )
    }
}

/// `selfplay.toml`: program, resolved config, engines and model checksums.
pub type SelfplayHeader = RunHeader<SelfplayConfig>;

impl GameRow for SelfplayRow {
    fn game(&self) -> u32 {
        self.game
    }
}

/// The files of a self-play folder: a games folder with each game's training records in
/// `records/`.
pub type SelfplayDir = GamesDir<SelfplayConfig, SelfplayRow>;

impl SelfplayDir {
    pub fn records(&self, game: u32) -> PathBuf {
        self.root
            .join("records")
            .join(format!("game-{game:05}.akr"))
    }

    /// A finished game's records, checked against the CRC-32 in its row.
    pub fn read_records(&self, row: &SelfplayRow) -> anyhow::Result<Vec<u8>> {
        crate::runs::folder::read_checked(
            &self.records(row.game),
            row.crc32,
            row.positions,
            SEARCH_RECORD_SIZE,
            "games.csv",
        )
    }
}

/// What a run did.
pub struct SelfplayOutcome {
    pub rows: Vec<SelfplayRow>,
    /// Games played by this call (not counting those found finished).
    pub played_now: usize,
}

/// Runs (or resumes) self-play into `out`.
pub fn run_selfplay(
    config: &SelfplayConfig,
    out: &Path,
    show_progress: bool,
) -> anyhow::Result<SelfplayOutcome> {
    config.validate()?;
    let dir = SelfplayDir::new(out);
    // A new run's specs are built before its folder is created: a typo claims nothing. A
    // resume builds them only when it has games to play (a finished run needs no engine).
    let new_run = dir.read_header()?.is_none();
    if new_run {
        check_engines(config)?;
    }
    let Opened {
        header,
        old,
        mut rows,
    } = dir.open(config, &super::identity::SpecEngines)?;
    let pending = dir.pending(config.planned_games(), &rows);
    if !pending.is_empty() && !new_run {
        // A spec that does not build fails now, not in every game.
        check_engines(config)?;
    }
    dir.start(&header, old.as_ref(), &pending)?;
    if pending.is_empty() {
        return Ok(SelfplayOutcome {
            rows: rows.into_values().collect(),
            played_now: 0,
        });
    }

    let bar = progress_bar(pending.len() as u64, show_progress, "self-play games");
    let next = AtomicUsize::new(0);
    let played_now = pending.len();
    let result: anyhow::Result<()> = std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<anyhow::Result<SelfplayGame>>();
        for _ in 0..config.jobs.min(pending.len()) {
            let tx = tx.clone();
            let (next, pending) = (&next, &pending);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&game) = pending.get(i) else { break };
                    let played = play(&config.plan(game), &config.rules);
                    let failed = played.is_err();
                    if tx.send(played).is_err() || failed {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut positions: u64 = rows.values().map(|r| r.positions as u64).sum();
        for played in rx {
            let played = match played {
                Ok(p) => p,
                Err(e) => {
                    // Stop handing out games; the finished ones are already on disk.
                    next.store(usize::MAX / 2, Ordering::Relaxed);
                    return Err(e);
                }
            };
            let game = played.row.game;
            positions += played.row.positions as u64;
            rows.insert(game, played.row);
            let files = [
                (dir.records(game), played.records.as_slice()),
                (dir.sgf(game), played.sgf.as_bytes()),
            ];
            dir.record(&files, &rows)?;
            bar.set_message(format!("{positions} positions"));
            bar.inc(1);
        }
        Ok(())
    });
    bar.finish_and_clear();
    result?;
    Ok(SelfplayOutcome {
        rows: rows.into_values().collect(),
        played_now,
    })
}

/// Builds every spec once, so a typo or a missing network fails before the first game (and,
/// for a new folder, before the folder is created).
pub fn check_engines(config: &SelfplayConfig) -> anyhow::Result<()> {
    for spec in &config.engines {
        build_selfplay_engine(spec, 0)?;
    }
    Ok(())
}

/// How [`build_dataset`] splits and filters.
#[derive(Debug, Clone, PartialEq)]
pub struct SelfplayDatasetConfig {
    /// Seed of the split hash.
    pub seed: u64,
    pub validation_fraction: f64,
    pub test_fraction: f64,
    /// Keep positions where the engine passed (the 81 outputs have no pass).
    pub include_passes: bool,
}

/// The split key of a self-play game: its seed, which names it across shards and runs.
pub fn game_id(row: &SelfplayRow) -> String {
    format!("selfplay-{:016x}", row.seed)
}

/// The identity of game `game` of a self-play folder: the hash of its SGF's content key
/// (board, komi, setup and every move, the random opening's included), as a dataset built
/// from that SGF gives it.
fn sgf_identity(sp: &SelfplayDir, game: u32) -> anyhow::Result<u64> {
    let rec = crate::dataset::gameset::read_sgf_game(&sp.sgf(game))?;
    Ok(game_hash(&rec.content_key()))
}

/// Turns the finished games of the self-play folders `dirs` into a dataset at `out`
/// (version-2 records; splits by a seeded hash of each game's seed, so a game keeps its split
/// when more games are added). A game found twice (the same seed and the same records: a
/// shard folder beside its merged folder) is taken once; two runs sharing seeds keep both.
pub fn build_dataset(
    dirs: &[PathBuf],
    cfg: &SelfplayDatasetConfig,
    out: &Path,
    force: bool,
) -> anyhow::Result<Manifest> {
    let start = std::time::Instant::now();
    crate::util::output::check_dir_output(out, OUTPUT_KIND, force, dirs)?;
    let _lock = crate::dataset::build::lock_output(out)?;
    // Each game with its records and a hash of them. A copy of a game (a shard folder beside
    // the folder it was merged into, one folder listed twice) has the same seed and the same
    // records, and is taken once; games of two runs that share a seed but not their engines
    // (every run's seeds follow from `--seed`, 1 by default, and the game's number) differ
    // in their records and are both kept.
    let mut games: Vec<(usize, SelfplayRow, Vec<u8>, u64)> = Vec::new();
    // Each game's identity, by (folder, game): the hash of its SGF's content key, the one
    // `dataset build --sgf` gives the same game, so a model's training games are known
    // whichever way its games reached a dataset.
    let mut identity = std::collections::HashMap::new();
    let mut seen = std::collections::HashSet::new();
    let mut duplicates = 0;
    for (d, dir) in dirs.iter().enumerate() {
        let sp = SelfplayDir::new(dir);
        if sp.read_header()?.is_none() {
            bail!(
                "{}: not a self-play folder (no selfplay.toml)",
                dir.display()
            );
        }
        for row in sp.read_rows()? {
            let bytes = sp.read_records(&row)?;
            let content = crate::dataset::gameset::game_hash(&bytes);
            identity.insert((d, row.game), sgf_identity(&sp, row.game)?);
            if seen.insert((row.seed, content)) {
                games.push((d, row, bytes, content));
            } else {
                duplicates += 1;
            }
        }
    }
    if games.is_empty() {
        bail!("no finished self-play game in the given folders: nothing written");
    }
    // In order of the game's seed, then its records: the same games make the same dataset
    // however they were sharded or listed.
    games.sort_by_key(|(_, r, _, content)| (r.seed, *content));
    let ids: Vec<String> = games.iter().map(|(_, r, _, _)| game_id(r)).collect();
    let splits = assign_splits_by_id(
        ids.iter().map(String::as_str),
        cfg.validation_fraction,
        cfg.test_fraction,
        cfg.seed,
    );
    let tmp = crate::util::commit::temp_dir_for(out);
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::create_dir(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let result = (|| -> anyhow::Result<Manifest> {
        crate::util::output::mark_dir(&tmp, OUTPUT_KIND)?;
        let mut counts = BTreeMap::new();
        let mut passes_dropped = 0u64;
        let hashes: Vec<u64> = games
            .iter()
            .map(|(d, row, _, _)| identity[&(*d, row.game)])
            .collect();
        for split in Split::ALL {
            let mut w = SplitWriter::create_version(&tmp, split, VERSION_SEARCH)?;
            let mut n_games = 0;
            for (index, ((d, row, bytes, _), s)) in games.iter().zip(&splits).enumerate() {
                if *s != split {
                    continue;
                }
                n_games += 1;
                for rec in bytes.chunks(SEARCH_RECORD_SIZE) {
                    let mut p = decode(rec).map_err(|e| {
                        anyhow::anyhow!("{}: game {}: {e}", dirs[*d].display(), row.game)
                    })?;
                    if p.played as usize >= crate::rules::NN && !cfg.include_passes {
                        passes_dropped += 1;
                        continue;
                    }
                    p.game = index as u32;
                    w.push(&p)?;
                }
            }
            let h = w.finish(n_games)?;
            counts.insert(
                split.name().to_string(),
                SplitCounts {
                    games: n_games as u64,
                    positions: h.count,
                    crc32: h.crc,
                },
            );
        }
        write_atomic_with(&tmp.join("games.csv"), |w| {
            let mut c = csv::Writer::from_writer(w);
            c.write_record([
                "game", "split", "hash", "id", "source", "moves", "result", "black", "white",
            ])?;
            for (i, ((d, row, _, _), s)) in games.iter().zip(&splits).enumerate() {
                c.write_record([
                    i.to_string(),
                    s.name().to_string(),
                    hash_text(hashes[i]),
                    game_id(row),
                    format!("{}#{}", dirs[*d].display(), row.game),
                    row.moves.to_string(),
                    row.result.clone(),
                    row.black.clone(),
                    row.white.clone(),
                ])?;
            }
            c.flush()
        })
        .with_context(|| format!("writing {}", tmp.join("games.csv").display()))?;
        let config = BuildConfig {
            selfplay: dirs.to_vec(),
            seed: cfg.seed,
            split_by: SplitBy::Id,
            validation_fraction: cfg.validation_fraction,
            test_fraction: cfg.test_fraction,
            include_passes: cfg.include_passes,
            list_skipped: false,
            ..BuildConfig::default()
        };
        let manifest = Manifest {
            format_version: format::VERSION_SEARCH,
            fingerprint: fingerprint_of(&hashes, &splits, &counts),
            created_by: format!("akushu {}", env!("CARGO_PKG_VERSION")),
            config,
            records_read: games.len() as u64 + duplicates,
            games_read: games.len() as u64 + duplicates,
            duplicates,
            games: games.len() as u64,
            positions: counts.values().map(|c: &SplitCounts| c.positions).sum(),
            passes_dropped,
            splits: counts,
            errors: BTreeMap::new(),
            filtered: BTreeMap::new(),
            skipped: Vec::new(),
            games_file: "games.csv".into(),
            elapsed_s: start.elapsed().as_secs_f64(),
            teacher: None,
        };
        let manifest_path = tmp.join(format::MANIFEST_FILE);
        write_atomic(
            &manifest_path,
            serde_json::to_string_pretty(&manifest)?.as_bytes(),
        )?;
        Ok(manifest)
    })();
    match result.and_then(|m| commit_dir(&tmp, out).map(|()| m)) {
        Ok(manifest) => Ok(manifest),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}
