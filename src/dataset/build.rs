//! The dataset builder: SGF inputs in, a dataset directory out.
//!
//! Steps: a reader thread streams raw records ([`crate::sgf::source::stream`]); worker
//! threads (rayon, one per core) decode, parse, filter and replay each record; the accepted
//! games are put back in input order, split by game with a seeded shuffle, and their
//! positions are encoded (in parallel, in chunks) and written to the split files. Everything
//! goes into `DIR.tmp-<pid>`, which is renamed to `DIR` only when complete, so an interrupted
//! build leaves no half dataset behind.
//!
//! Same inputs + same seed = the same dataset, whatever the number of threads: results are
//! ordered by input position before anything depends on order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::filter::{Filter, FilterConfig, Players};
use super::format::{self, MANIFEST_FILE, RECORD_SIZE, SplitWriter};
use super::gameset::{self, DatasetGames};
use super::index::GameIndex;
use super::record::{NO_POINT, Position, Split};
use crate::rules::{Move, PASS_INDEX};
use crate::sgf::props::RANK_UNKNOWN;
use crate::sgf::{self, GameRecord, ParseConfig, RawRecord, Superko, rank_text};
use crate::util::fsio;
use crate::util::rng::FastRng;

/// Everything a build depends on (summarised in one line at the start, stored in full in the
/// manifest of a build that writes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BuildConfig {
    /// SGF inputs: files, folders, `.tar[.gz|.xz]` archives, `.sgfs` files.
    pub inputs: Vec<PathBuf>,
    /// Game index CSV (optionally `.xz`/`.gz`) overriding ranks and flagging bots.
    pub index: Option<PathBuf>,
    /// Which games to keep.
    pub filter: FilterConfig,
    /// Parsing options (lenient recovery of broken files).
    pub parse: ParseConfig,
    /// When replay enforces positional superko (default: never; see `sgf::replay`).
    pub superko: Superko,
    /// Also store positions whose move is a pass (the paper's 81 outputs have none).
    pub include_passes: bool,
    /// Seed of the train/validation/test shuffle.
    pub seed: u64,
    /// How games are assigned to splits.
    pub split_by: SplitBy,
    /// Datasets whose test games must stay out of this dataset's training and validation
    /// splits: a game whose id is in one of their `games.csv` test rows goes to this
    /// dataset's test split, whatever the split rule says. Keeps an older model's test set
    /// clean for a model trained on the new dataset.
    #[serde(default)]
    pub hold_out: Vec<PathBuf>,
    /// Share of games in the validation split.
    pub validation_fraction: f64,
    /// Share of games in the test split.
    pub test_fraction: f64,
    /// Worker threads (0 = one per core).
    pub threads: usize,
    /// Stop after this many raw records (0 = all): quick samples of big archives.
    pub limit: usize,
    /// Build as akushu did before copies were dropped: every copy of a game kept, held-out
    /// games matched by id only. Reproduces the shipped models' datasets; off by default,
    /// since copies in two splits leak.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub keep_duplicates: bool,
    /// Keep the `skipped.csv` list of every skipped game (filters included).
    pub list_skipped: bool,
    /// Self-play folders (`akushu selfplay`) the records came from, instead of SGF inputs:
    /// version-2 records with the search's visits, value and the game's ownership.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selfplay: Vec<PathBuf>,
}

impl Default for BuildConfig {
    fn default() -> Self {
        BuildConfig {
            inputs: Vec::new(),
            index: None,
            filter: FilterConfig::default(),
            parse: ParseConfig::default(),
            superko: Superko::Never,
            include_passes: false,
            seed: 1,
            split_by: SplitBy::Content,
            hold_out: Vec::new(),
            validation_fraction: 0.1,
            test_fraction: 0.1,
            threads: 0,
            limit: 0,
            keep_duplicates: false,
            list_skipped: true,
            selfplay: Vec::new(),
        }
    }
}

/// How games are assigned to the train/validation/test splits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SplitBy {
    /// A seeded hash of the game itself (its content: size, komi, handicap, setup, main
    /// line): a game lands in the same split in every dataset built with the same seed and
    /// shares, whatever the filters, inputs, ids or duplicates; split sizes are only close to
    /// the shares.
    #[default]
    Content,
    /// A seeded shuffle of the accepted games: exact split sizes, but a game's split depends
    /// on which other games the filters accepted, so changing a filter moves games between
    /// splits (the shipped paper-like models' dataset used it).
    Shuffle,
    /// A seeded hash of the game id: split sizes are only close to the shares, but a game
    /// lands in the same split in every dataset built with the same seed and shares, whatever
    /// the filters, so models trained on one dataset can be tested on another's test split
    /// without leakage.
    Id,
}

/// One skipped record or input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skip {
    pub file: String,
    pub game: String,
    /// Short key (`syntax`, `illegal-ko`, `filter:rank`, ...).
    pub kind: String,
    pub reason: String,
}

/// Counts for one split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SplitCounts {
    pub games: u64,
    pub positions: u64,
    pub crc32: u32,
}

/// The `manifest.json` of a dataset directory.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    /// A hash of every split's games and bytes ([`gameset::fingerprint`]): a model records it
    /// to name the data it was trained on. Empty for datasets built before it existed.
    #[serde(default)]
    pub fingerprint: String,
    pub created_by: String,
    pub config: BuildConfig,
    /// Raw records read (files, `.sgfs` lines, archive members).
    pub records_read: u64,
    /// Game trees found in them (a collection file holds several).
    #[serde(default)]
    pub games_read: u64,
    /// Accepted games dropped as copies of an earlier game (same size, komi, setup and main
    /// line); each is listed in `skipped` with the copy kept.
    #[serde(default)]
    pub duplicates: u64,
    /// Games accepted (= sum of split games).
    pub games: u64,
    /// Positions written (= sum of split positions).
    pub positions: u64,
    /// Pass moves of accepted games that were not stored (`include_passes` off).
    pub passes_dropped: u64,
    pub splits: BTreeMap<String, SplitCounts>,
    /// Skips by reason key: broken records and unreadable inputs.
    pub errors: BTreeMap<String, u64>,
    /// Skips by filter.
    pub filtered: BTreeMap<String, u64>,
    /// Every broken record or unreadable input: file, game id, reason.
    pub skipped: Vec<Skip>,
    /// File listing every accepted game (row = game index in the records).
    pub games_file: String,
    pub elapsed_s: f64,
    /// The teacher that labelled the positions (format version 3), and what it labelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teacher: Option<LabelledFrom>,
}

/// Where a labelled dataset's positions came from, and who labelled them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelledFrom {
    #[serde(flatten)]
    pub teacher: super::record::TeacherInfo,
    /// The dataset labelled, as the command named it, and its fingerprint.
    pub source: String,
    pub source_fingerprint: String,
    /// Positions whose teacher policy called legal a point akushu's rules forbid (a stone,
    /// the ko point, a suicide: a teacher's ko and suicide rules may differ): those points
    /// were left out and the other shares renormalised.
    #[serde(default)]
    pub policies_renormalised: u64,
}

impl Manifest {
    /// Reads `DIR/manifest.json`.
    pub fn load(dir: &Path) -> Result<Manifest, format::DatasetError> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| format::DatasetError::Io {
            path: path.clone(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|e| format::DatasetError::Manifest {
            path,
            reason: e.to_string(),
        })
    }
}

/// An accepted game, ready to be written.
struct Accepted {
    rec: GameRecord,
    players: Players,
}

enum Outcome {
    Accepted(Box<Accepted>),
    Skipped(Skip),
}

/// What the workers hand back for one raw record (a file may hold several games).
struct Processed {
    seq: u64,
    outcomes: Vec<Outcome>,
    /// Games of the record found in the `--index`.
    index_hits: u32,
}

fn rank_code(r: Option<i8>) -> i8 {
    r.unwrap_or(RANK_UNKNOWN)
}

/// Parses, filters and replays one raw record.
fn process(raw: RawRecord, cfg: &BuildConfig, filter: &Filter, index: &GameIndex) -> Processed {
    let skip = |game: &str, kind: &str, reason: String| {
        Outcome::Skipped(Skip {
            file: raw.source.clone(),
            game: game.to_string(),
            kind: kind.to_string(),
            reason,
        })
    };
    let records = sgf::parse_records(&raw.bytes, &raw.id, &raw.source, cfg.parse);
    let index_hits = std::cell::Cell::new(0u32);
    let outcomes = records
        .into_iter()
        .enumerate()
        .map(|(k, r)| {
            let rec = match r {
                Ok(rec) => rec,
                // The k-th game of a collection is named as the parser names it.
                Err(e) => return skip(&sgf::record::game_id(&raw.id, k), e.kind(), e.to_string()),
            };
            let players = match index.get(&rec.id) {
                Some(e) => {
                    index_hits.set(index_hits.get() + 1);
                    Players {
                        black_rank: e.black_rank,
                        white_rank: e.white_rank,
                        bot: e.bot,
                    }
                }
                None => Players {
                    black_rank: rec.black_rank,
                    white_rank: rec.white_rank,
                    bot: filter.is_bot_name(&rec.black_name) || filter.is_bot_name(&rec.white_name),
                },
            };
            if let Err(kind) = filter.check(&rec, &players) {
                return skip(&rec.id, kind, kind.to_string());
            }
            if let Err(e) = sgf::replay::check(&rec, cfg.superko) {
                return skip(&rec.id, e.kind(), e.to_string());
            }
            Outcome::Accepted(Box::new(Accepted { rec, players }))
        })
        .collect();
    Processed {
        seq: raw.seq,
        outcomes,
        index_hits: index_hits.get(),
    }
}

/// [`process`], with a panic in a third-party parser turned into a skipped record: one bad
/// record must never stop a build.
fn process_guarded(
    raw: RawRecord,
    cfg: &BuildConfig,
    filter: &Filter,
    index: &GameIndex,
) -> Processed {
    let (seq, id, source) = (raw.seq, raw.id.clone(), raw.source.clone());
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        process(raw, cfg, filter, index)
    }))
    .unwrap_or_else(|_| Processed {
        seq,
        outcomes: vec![Outcome::Skipped(Skip {
            file: source,
            game: id,
            kind: "internal-error".into(),
            reason: "the reader panicked on this record".into(),
        })],
        index_hits: 0,
    })
}

/// Encodes the positions of one game (game table index `game`) onto `out`; returns the
/// number of positions and of dropped passes.
fn encode_game(
    a: &Accepted,
    game: u32,
    cfg: &BuildConfig,
    out: &mut Vec<u8>,
) -> Result<(u64, u64), sgf::ReplayError> {
    let (mut n, mut passes) = (0u64, 0u64);
    let winner = a.rec.result.winner_code();
    // `process` already replayed the game through the game layer (superko policy
    // included); the bare board gives the same positions faster.
    sgf::replay::replay_board(&a.rec, |step| {
        if step.mv == Move::Pass && !cfg.include_passes {
            passes += 1;
            return;
        }
        let mut last = [NO_POINT; 4];
        for (slot, m) in last.iter_mut().zip(step.last) {
            if let Some(m) = m {
                *slot = m.index() as u8;
            }
        }
        let p = Position {
            cells: *step.board.cells(),
            to_move: step.color as u8,
            played: step.mv.index() as u8,
            move_number: step.number.min(u16::MAX as usize) as u16,
            last_moves: last,
            ko: sgf::replay::point_code(step.board.ko_point()),
            winner,
            black_rank: rank_code(a.players.black_rank),
            white_rank: rank_code(a.players.white_rank),
            game,
            search: None,
            teacher: None,
        };
        debug_assert!((p.played as usize) <= PASS_INDEX);
        out.extend_from_slice(&format::encode(&p));
        n += 1;
    })?;
    Ok((n, passes))
}

/// Splits `n` games by a seeded shuffle: exactly `round(n * fraction)` validation and test
/// games; returns each game's split.
pub fn assign_splits(n: usize, validation: f64, test: f64, seed: u64) -> Vec<Split> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = FastRng::new(seed);
    for i in (1..n).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        order.swap(i, j);
    }
    let n_val = ((n as f64) * validation).round() as usize;
    let n_test = (((n as f64) * test).round() as usize).min(n - n_val.min(n));
    let mut splits = vec![Split::Train; n];
    for (k, &g) in order.iter().enumerate() {
        if k < n_val {
            splits[g] = Split::Validation;
        } else if k < n_val + n_test {
            splits[g] = Split::Test;
        }
    }
    splits
}

/// Assigns each game by a seeded hash of its id (see [`SplitBy::Id`]): the hash, read as a
/// fraction of 2^64, below `validation` is validation, below `validation + test` is test.
pub fn assign_splits_by_id<'a>(
    ids: impl IntoIterator<Item = &'a str>,
    validation: f64,
    test: f64,
    seed: u64,
) -> Vec<Split> {
    ids.into_iter()
        .map(|id| gameset::split_of_unit(id_hash(id, seed), validation, test))
        .collect()
}

/// The ids and the game hashes (where recorded) of the test games of every dataset in
/// `dirs` (read from their `games.csv`).
fn held_out_games(
    dirs: &[PathBuf],
) -> Result<(std::collections::HashSet<String>, gameset::GameSet)> {
    let mut ids = std::collections::HashSet::new();
    let mut hashes = Vec::new();
    for dir in dirs {
        if let Some(games) = DatasetGames::read(dir).with_context(|| "--hold-out")? {
            hashes.extend(games.of(&[Split::Test]));
        }
        let path = dir.join("games.csv");
        let mut reader = csv::Reader::from_path(&path)
            .with_context(|| format!("--hold-out: reading {}", path.display()))?;
        let header = reader.headers()?.clone();
        let col = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .with_context(|| format!("--hold-out: {} has no `{name}` column", path.display()))
        };
        let (split_col, id_col) = (col("split")?, col("id")?);
        for (line, row) in reader.records().enumerate() {
            let row = row.with_context(|| format!("{}: row {}", path.display(), line + 2))?;
            if row.get(split_col) == Some(Split::Test.name()) {
                ids.insert(row.get(id_col).unwrap_or_default().to_string());
            }
        }
    }
    Ok((ids, gameset::GameSet::new(hashes)))
}

/// The id's seeded hash ([`gameset::seeded_hash`]): stable across platforms and releases,
/// the splits depend on it.
fn id_hash(id: &str, seed: u64) -> u64 {
    gameset::seeded_hash(id.as_bytes(), seed)
}

/// The output kind named in a dataset directory's marker file.
pub const OUTPUT_KIND: &str = "dataset";

/// Moves the finished temporary directory to `out`, replacing an earlier dataset there
/// (already checked by [`check_output`]).
pub fn commit_dir(tmp: &Path, out: &Path) -> Result<()> {
    crate::util::commit::replace_dir(tmp, out, "dataset")
}

/// Takes `out`'s lock (a second build into it is refused) and cleans what crashed builds
/// of it left (`util::commit`); the lock is held until the returned guard drops.
pub fn lock_output(out: &Path) -> Result<crate::util::commit::OutputLock> {
    let lock = crate::util::commit::OutputLock::acquire(out)?;
    for line in crate::util::commit::recover_leftovers(out)? {
        crate::errln!("{line}");
    }
    Ok(lock)
}

/// Every path a build reads: SGF inputs, the index, held-out datasets.
fn read_paths(cfg: &BuildConfig) -> Vec<PathBuf> {
    let mut v = cfg.inputs.clone();
    v.extend(cfg.index.iter().cloned());
    v.extend(cfg.hold_out.iter().cloned());
    v
}

/// Refuses, before any work, an output that is an input or holds something akushu did not
/// write as a dataset (see [`crate::util::output`]), and inputs that do not exist.
pub fn check_output(cfg: &BuildConfig, out: &Path, force: bool) -> Result<()> {
    for input in &cfg.inputs {
        // A packed games folder's `sgf/` is read from its archive (`util::pack`).
        if std::fs::symlink_metadata(input).is_err()
            && crate::util::pack::packed_location(input).is_none()
        {
            bail!("{}", crate::util::fsio::missing_input("input", input));
        }
    }
    crate::util::output::check_dir_output(out, OUTPUT_KIND, force, &read_paths(cfg))?;
    Ok(())
}

fn progress_bar(show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    pb.set_style(crate::util::progress::style(
        "{spinner} {elapsed_precise} {human_pos} records read ({rate}) {msg}",
    ));
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    pb
}

/// The error of a build in which no game passed: nothing was written, and the count of each
/// reason (filter or error) tells which setting to loosen.
fn nothing_accepted(out: &Path, records_read: u64, games_read: u64, skips: &[Skip]) -> String {
    let mut by_kind: BTreeMap<&str, u64> = BTreeMap::new();
    for s in skips {
        *by_kind.entry(s.kind.as_str()).or_insert(0) += 1;
    }
    let counts: Vec<String> = by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let first: Vec<String> = skips
        .iter()
        .take(3)
        .map(|s| format!("{} {}: {}", s.file, s.game, s.reason))
        .collect();
    format!(
        "nothing written to {}: 0 of {games_read} games ({records_read} records read) passed \
         the checks and filters; skipped: {}{}",
        out.display(),
        if counts.is_empty() {
            "none".to_string()
        } else {
            counts.join(", ")
        },
        if first.is_empty() {
            String::new()
        } else {
            format!("; first: {}", first.join("; "))
        }
    )
}

/// Builds a dataset from `cfg.inputs` into `out`; returns the manifest. `progress` shows an
/// indicatif bar on stderr. Replaces only an earlier dataset (see [`build_into`]).
pub fn build(cfg: &BuildConfig, out: &Path, progress: bool) -> Result<Manifest> {
    build_into(cfg, out, progress, false)
}

/// [`build`]; `force` allows replacing a directory akushu did not mark as a dataset.
pub fn build_into(cfg: &BuildConfig, out: &Path, progress: bool, force: bool) -> Result<Manifest> {
    let start = Instant::now();
    if cfg.inputs.is_empty() {
        bail!("no SGF inputs given (--sgf PATH)");
    }
    check_output(cfg, out, force)?;
    let _lock = lock_output(out)?;
    let threads = crate::util::num::check("threads", cfg.threads, 0, crate::util::num::MAX_THREADS)
        .map_err(anyhow::Error::msg)?;
    if !(0.0..=1.0).contains(&(cfg.validation_fraction + cfg.test_fraction))
        || cfg.validation_fraction < 0.0
        || cfg.test_fraction < 0.0
    {
        bail!("validation_fraction + test_fraction must lie in 0..=1");
    }
    for (name, k) in [
        ("min_komi", cfg.filter.min_komi),
        ("max_komi", cfg.filter.max_komi),
    ] {
        if let Some(k) = k {
            crate::rules::check_komi(name, k).map_err(anyhow::Error::msg)?;
        }
    }
    let filter = Filter::new(cfg.filter.clone()).map_err(anyhow::Error::msg)?;
    let index = match &cfg.index {
        Some(p) => GameIndex::load(p)?,
        None => GameIndex::default(),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting worker threads")?;

    // Read, parse, filter, replay.
    let pb = progress_bar(progress);
    let source_errors = Mutex::new(Vec::new());
    let rx = sgf::source::stream(cfg.inputs.clone());
    let limit = if cfg.limit == 0 {
        u64::MAX
    } else {
        cfg.limit as u64
    };
    let mut processed: Vec<Processed> = pool.install(|| {
        rx.into_iter()
            .filter_map(|r| match r {
                Ok(raw) => Some(raw),
                Err(e) => {
                    source_errors.lock().expect("no panics").push(Skip {
                        file: e.source_name.clone(),
                        game: String::new(),
                        kind: "unreadable".into(),
                        reason: e.reason,
                    });
                    None
                }
            })
            .take_while(|raw| raw.seq < limit)
            .par_bridge()
            .map(|raw| {
                pb.inc(1);
                process_guarded(raw, cfg, &filter, &index)
            })
            .collect()
    });
    pb.finish_and_clear();
    processed.sort_by_key(|p| p.seq);
    let records_read = processed.len() as u64;
    let games_read = processed.iter().map(|p| p.outcomes.len() as u64).sum();
    let index_hits: u64 = processed.iter().map(|p| u64::from(p.index_hits)).sum();
    if let Some(path) = cfg
        .index
        .as_ref()
        .filter(|_| games_read > 0 && index_hits == 0)
    {
        // Ranks and bot flags then come from the SGF files alone: most likely the index is
        // another corpus's, which is worth saying before the filters act on it.
        crate::errln!(
            "warning: --index {} names none of the {games_read} games read (by game id): their \
             ranks and bot flags come from the SGF files",
            path.display()
        );
    }

    let mut accepted = Vec::new();
    let mut skips = source_errors.into_inner().expect("no panics");
    for p in processed {
        for o in p.outcomes {
            match o {
                Outcome::Accepted(a) => accepted.push(*a),
                Outcome::Skipped(s) => skips.push(s),
            }
        }
    }
    let duplicates = if cfg.keep_duplicates {
        0
    } else {
        drop_duplicates(&mut accepted, &mut skips)
    };
    let hashes: Vec<u64> = accepted
        .iter()
        .map(|a| gameset::game_hash(&a.rec.content_key()))
        .collect();
    let (held_out, held_out_hashes) = held_out_games(&cfg.hold_out)?;
    let mut splits = match cfg.split_by {
        SplitBy::Content => hashes
            .iter()
            .map(|&h| {
                gameset::split_of_hash(h, cfg.validation_fraction, cfg.test_fraction, cfg.seed)
            })
            .collect(),
        SplitBy::Shuffle => assign_splits(
            accepted.len(),
            cfg.validation_fraction,
            cfg.test_fraction,
            cfg.seed,
        ),
        SplitBy::Id => assign_splits_by_id(
            accepted.iter().map(|a| a.rec.id.as_str()),
            cfg.validation_fraction,
            cfg.test_fraction,
            cfg.seed,
        ),
    };
    for ((a, split), h) in accepted.iter().zip(splits.iter_mut()).zip(&hashes) {
        // Builds before copies were dropped matched held-out games by id only.
        let by_hash = !cfg.keep_duplicates && held_out_hashes.contains(*h);
        if held_out.contains(a.rec.id.as_str()) || by_hash {
            *split = Split::Test;
        }
    }

    if accepted.is_empty() {
        bail!(
            "{}",
            nothing_accepted(out, records_read, games_read, &skips)
        );
    }

    // Write everything into a temporary sibling directory (never one that exists already).
    let tmp = crate::util::commit::temp_dir_for(out);
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::create_dir(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let written = crate::util::output::mark_dir(&tmp, OUTPUT_KIND)
        .map_err(anyhow::Error::from)
        .and_then(|()| write_all(cfg, &tmp, &accepted, &splits, progress));
    let (split_counts, passes_dropped) = match written {
        Ok(w) => w,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };

    let mut errors = BTreeMap::new();
    let mut filtered = BTreeMap::new();
    for s in &skips {
        let map = if s.kind.starts_with("filter:") {
            &mut filtered
        } else {
            &mut errors
        };
        *map.entry(s.kind.clone()).or_insert(0u64) += 1;
    }
    let fingerprint = fingerprint_of(&hashes, &splits, &split_counts);
    let manifest = Manifest {
        format_version: format::VERSION,
        fingerprint,
        created_by: format!("akushu {}", env!("CARGO_PKG_VERSION")),
        config: cfg.clone(),
        records_read,
        games_read,
        duplicates,
        games: accepted.len() as u64,
        positions: split_counts.values().map(|c| c.positions).sum(),
        passes_dropped,
        splits: split_counts,
        errors,
        filtered,
        skipped: skips
            .iter()
            .filter(|s| !s.kind.starts_with("filter:"))
            .cloned()
            .collect(),
        games_file: "games.csv".into(),
        elapsed_s: start.elapsed().as_secs_f64(),
        teacher: None,
    };
    let result = (|| -> Result<()> {
        write_games_csv(&tmp.join("games.csv"), &accepted, &hashes, &splits)?;
        if cfg.list_skipped {
            write_skipped_csv(&tmp.join("skipped.csv"), &skips)?;
        }
        let json = serde_json::to_string_pretty(&manifest)?;
        let manifest_path = tmp.join(MANIFEST_FILE);
        fsio::write_atomic(&manifest_path, json.as_bytes())?;
        commit_dir(&tmp, out)
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result?;
    Ok(manifest)
}

/// The fingerprint of a dataset whose game `g` has hash `hashes[g]` and split `splits[g]`
/// ([`gameset::fingerprint`]).
pub fn fingerprint_of(
    hashes: &[u64],
    splits: &[Split],
    counts: &BTreeMap<String, SplitCounts>,
) -> String {
    let mut games = DatasetGames::default();
    for (&h, s) in hashes.iter().zip(splits) {
        games.by_split.entry(s.name()).or_default().push(h);
    }
    let crcs = counts
        .iter()
        .map(|(k, c)| (k.clone(), (c.positions, c.crc32)))
        .collect();
    gameset::fingerprint(&games, &crcs)
}

/// Keeps the first copy (in input order) of every game and moves the later copies to
/// `skips` as `duplicate`, naming the copy kept: the same game reached through two paths,
/// archives or ids must not land in two splits. Returns how many were dropped.
fn drop_duplicates(accepted: &mut Vec<Accepted>, skips: &mut Vec<Skip>) -> u64 {
    let mut first: std::collections::HashMap<Vec<u8>, usize> = std::collections::HashMap::new();
    let mut kept = Vec::with_capacity(accepted.len());
    let mut dropped = 0;
    for a in accepted.drain(..) {
        match first.entry(a.rec.content_key()) {
            std::collections::hash_map::Entry::Occupied(e) => {
                let original: &Accepted = &kept[*e.get()];
                skips.push(Skip {
                    file: a.rec.source.clone(),
                    game: a.rec.id.clone(),
                    kind: "duplicate".into(),
                    reason: format!("same game as {} ({})", original.rec.id, original.rec.source),
                });
                dropped += 1;
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(kept.len());
                kept.push(a);
            }
        }
    }
    *accepted = kept;
    dropped
}

/// Games encoded per parallel batch (bounds memory while writing).
const WRITE_BATCH: usize = 4096;

fn write_all(
    cfg: &BuildConfig,
    dir: &Path,
    accepted: &[Accepted],
    splits: &[Split],
    progress: bool,
) -> Result<(BTreeMap<String, SplitCounts>, u64)> {
    let mut counts = BTreeMap::new();
    let mut passes_dropped = 0;
    let pb = if progress {
        let pb = ProgressBar::new(accepted.len() as u64);
        pb.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} games written {msg}")
                .expect("valid template"),
        );
        pb
    } else {
        ProgressBar::hidden()
    };
    for split in Split::ALL {
        pb.set_message(split.name());
        let games: Vec<usize> = (0..accepted.len())
            .filter(|&g| splits[g] == split)
            .collect();
        let mut w = SplitWriter::create(dir, split)?;
        for batch in games.chunks(WRITE_BATCH) {
            let encoded: Vec<Result<(Vec<u8>, u64), sgf::ReplayError>> = batch
                .par_iter()
                .map(|&g| {
                    let mut bytes = Vec::with_capacity(64 * RECORD_SIZE);
                    let (_, passes) = encode_game(&accepted[g], g as u32, cfg, &mut bytes)?;
                    Ok((bytes, passes))
                })
                .collect();
            for e in encoded {
                // Replay already succeeded in the worker: a failure here is a bug.
                let (bytes, passes) = e.context("replay changed between check and write")?;
                passes_dropped += passes;
                w.push_encoded(&bytes)?;
            }
            pb.inc(batch.len() as u64);
        }
        let h = w.finish(games.len() as u32)?;
        counts.insert(
            split.name().to_string(),
            SplitCounts {
                games: games.len() as u64,
                positions: h.count,
                crc32: h.crc,
            },
        );
    }
    pb.finish_and_clear();
    Ok((counts, passes_dropped))
}

fn opt_rank(r: Option<i8>) -> String {
    r.map(rank_text).unwrap_or_default()
}

fn write_games_csv(
    path: &Path,
    games: &[Accepted],
    hashes: &[u64],
    splits: &[Split],
) -> Result<()> {
    fsio::write_atomic_with(path, |w| {
        let mut c = csv::Writer::from_writer(w);
        c.write_record([
            "game",
            "split",
            "hash",
            "id",
            "source",
            "moves",
            "passes",
            "black_rank",
            "white_rank",
            "result",
            "komi",
            "handicap",
            "rules",
            "black",
            "white",
            "date",
        ])?;
        for (i, ((a, s), h)) in games.iter().zip(splits).zip(hashes).enumerate() {
            let r = &a.rec;
            c.write_record([
                i.to_string(),
                s.name().to_string(),
                gameset::hash_text(*h),
                r.id.clone(),
                r.source.clone(),
                r.moves.len().to_string(),
                r.passes().to_string(),
                opt_rank(a.players.black_rank),
                opt_rank(a.players.white_rank),
                r.result_text.clone(),
                r.komi.map(|k| k.to_string()).unwrap_or_default(),
                r.handicap.to_string(),
                r.rules.clone().unwrap_or_default(),
                r.black_name.clone(),
                r.white_name.clone(),
                r.date.clone(),
            ])?;
        }
        c.flush()?;
        Ok(())
    })
    .map_err(anyhow::Error::from)
}

fn write_skipped_csv(path: &Path, skips: &[Skip]) -> Result<()> {
    fsio::write_atomic_with(path, |w| {
        let mut c = csv::Writer::from_writer(w);
        c.write_record(["file", "game", "kind", "reason"])?;
        for s in skips {
            c.write_record([&s.file, &s.game, &s.kind, &s.reason])?;
        }
        c.flush()?;
        Ok(())
    })
    .map_err(anyhow::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_splits_follow_the_id_not_the_other_games() {
        let ids: Vec<String> = (0..20_000)
            .map(|k| format!("ogs_{}", 10_000_000 + k))
            .collect();
        let all = assign_splits_by_id(ids.iter().map(|s| s.as_str()), 0.1, 0.1, 7);
        let count = |v: &[Split], s: Split| v.iter().filter(|&&x| x == s).count();
        // Close to the shares (binomial: 2,000 expected, sd 42).
        for s in [Split::Validation, Split::Test] {
            assert!((1_850..=2_150).contains(&count(&all, s)), "{s:?}");
        }
        // Every other game only (another filter): each keeps its split.
        let half = assign_splits_by_id(ids.iter().step_by(2).map(|s| s.as_str()), 0.1, 0.1, 7);
        assert!(half.iter().zip(all.iter().step_by(2)).all(|(a, b)| a == b));
        // Another seed gives another assignment.
        let other = assign_splits_by_id(ids.iter().map(|s| s.as_str()), 0.1, 0.1, 8);
        assert!(other.iter().zip(&all).filter(|(a, b)| a != b).count() > 2_000);
    }

    #[test]
    fn splits_are_exact_seeded_and_complete() {
        let s = assign_splits(1000, 0.1, 0.1, 7);
        let count = |x| s.iter().filter(|&&v| v == x).count();
        assert_eq!((count(Split::Validation), count(Split::Test)), (100, 100));
        assert_eq!(count(Split::Train), 800);
        assert_eq!(s, assign_splits(1000, 0.1, 0.1, 7));
        assert_ne!(s, assign_splits(1000, 0.1, 0.1, 8));
        assert_eq!(assign_splits(0, 0.1, 0.1, 1), vec![]);
        assert_eq!(assign_splits(1, 0.5, 0.5, 1).len(), 1);
    }
}
