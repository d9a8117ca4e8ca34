//! `akushu dataset label`: every position of a dataset becomes a query to a teacher, and
//! its answer becomes the position's [`TeacherLabel`] in a dataset of format version 3.
//!
//! The run is a games folder ([`GamesDir`]) whose unit is a chunk of [`CHUNK`] consecutive
//! records of one split: `label.toml` (the run: the data, the teacher's identity, visits,
//! rules, komi, shard), `labels.csv` (one row per labelled chunk, with its CRC-32: the
//! checkpoint) and `chunks/chunk-NNNNN.akr` (the chunk's labelled records). A chunk's file
//! is written before its row, so `kill -9` at any moment loses at most the chunks in
//! flight and labels nothing twice. `--shard i/n` labels the chunks `c` with
//! `(c - 1) % n == i`; `--from` takes the finished chunks of other folders of the same run
//! (the shards), so the dataset assembled from them is byte for byte the dataset one run
//! writes (given a teacher that answers a position the same way each time).
//!
//! When every chunk is labelled (and the run is not a shard) the folder becomes the
//! labelled dataset: the split files, the source's `games.csv`, and `manifest.json` naming
//! the teacher and the source (written last: a folder with a manifest is complete).
//!
//! Per position the teacher gets one query: the game so far ([`Histories`]), the rules and
//! komi, `maxVisits`, `includePolicy`, `includeOwnership`, and win rates reported for the
//! side to move. With `per_move`, every move its policy calls legal (pass included) is then
//! asked as the child position, and the mover's win rate and score lead after the move
//! are one minus, and minus, the child's: 1 + (legal moves) queries per position.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::{Teacher, shorten};
use super::history::Histories;
use crate::dataset::build::{LabelledFrom, Manifest};
use crate::dataset::format::{self, MappedSplit, SplitWriter, TEACHER_RECORD_SIZE};
use crate::dataset::record::{
    MoveValues, NO_SCORE, NO_SHARE, OWNERSHIP_SCALE, score_to_i16, share_to_u16,
};
use crate::dataset::{Split, TeacherInfo, TeacherLabel};
use crate::gtp::json_analysis::protocol::{Answer, Field, OverrideSettings, Query, RootInfo};
use crate::rules::{Move, N, NN};
use crate::runs::folder::{GameRow, GamesDir, NoEngines, Opened, RunConfig, Schedule, Shard};

/// Positions per chunk: the unit of the checkpoint and of sharding.
pub const CHUNK: u32 = 512;
/// The komi of a game whose record gives none, under `--komi game`.
pub const DEFAULT_KOMI: f32 = 6.5;
/// The largest komi a teacher is queried at, either way: KataGo's analysis engine refuses a
/// komi outside -150..=150 (its `Rules::MAX_USER_KOMI`), so `--komi` is narrower on purpose
/// than the rules' range ([`crate::rules::MAX_KOMI`]), which records' komi may fill.
pub const TEACHER_MAX_KOMI: f32 = 150.0;
/// Query slots of a position: the 81 points and pass.
const SLOTS: usize = NN + 1;
/// The largest score lead an answer may give, in points: the most a label stores
/// (hundredths in an `i16`), far beyond 81 points and `--komi`'s largest, [`TEACHER_MAX_KOMI`].
const MAX_SCORE_LEAD: f64 = i16::MAX as f64 / 100.0;
/// How far the sum of an answer's policy over the legal moves may be from 1 (the printed
/// shares' rounding).
const POLICY_SUM_TOLERANCE: f64 = 0.01;

/// A labelling run: what is labelled, by whom, and this run's share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelConfig {
    /// The dataset labelled, as the command named it.
    pub data: String,
    /// Its fingerprint: a resume or merge on other data is refused.
    pub data_fingerprint: String,
    /// The splits labelled, in order.
    pub splits: Vec<Split>,
    /// Positions of each split labelled at most, from its start (0 = all).
    pub limit: u64,
    /// Per-split limits that replace `limit` for the splits they name (`--split-limit`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub split_limits: BTreeMap<String, u64>,
    /// Every how many records one is labelled (1 = all): records 0, k, 2k, ... of a split.
    #[serde(default = "one")]
    pub every: u32,
    /// Positions per chunk.
    pub chunk: u32,
    /// Chunks in the whole run (all shards).
    pub chunks: u32,
    /// The teacher and how it is asked.
    pub teacher: TeacherInfo,
    /// This run's share of the chunks, if sharded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

/// One labelled chunk: a row of `labels.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelRow {
    pub chunk: u32,
    pub split: Split,
    /// The chunk's first position among its split's labelled ones.
    pub first: u64,
    pub positions: u32,
    /// Queries the chunk took.
    pub queries: u64,
    /// CRC-32 of the chunk's file.
    pub crc32: u32,
    /// Positions whose policy was renormalised (see [`LabelledFrom::policies_renormalised`]);
    /// absent from folders written before it was counted.
    #[serde(default)]
    pub renormalised: u32,
}

impl GameRow for LabelRow {
    fn game(&self) -> u32 {
        self.chunk
    }
}

impl RunConfig for LabelConfig {
    const KEY: &'static str = "label";
    const FILE: &'static str = "label.toml";
    const KIND: &'static str = "labelled dataset";
    const COMMENT: &'static str = "# A teacher-labelling run written by `akushu dataset label`.";
    const SUBDIRS: &'static [&'static str] = &["chunks"];
    const ROWS: &'static str = "labels.csv";
    const UNITS: (&'static str, &'static str) = ("chunks", "to label");

    fn specs(&self) -> Vec<&String> {
        Vec::new()
    }

    fn schedule(&self) -> Schedule {
        Schedule {
            games: self.chunks,
            shard: self.shard,
        }
    }

    fn check_same_run(&self, old: &Self, header: &Path) -> anyhow::Result<()> {
        let mut differ = Vec::new();
        if old.data_fingerprint != self.data_fingerprint {
            differ.push(format!(
                "the data (fingerprint {} there, {} now)",
                old.data_fingerprint, self.data_fingerprint
            ));
        }
        if (&old.splits, old.limit, old.every, old.chunk, old.chunks)
            != (
                &self.splits,
                self.limit,
                self.every,
                self.chunk,
                self.chunks,
            )
        {
            differ.push("the splits, --limit or --every".into());
        }
        if old.teacher != self.teacher {
            let (was, now) = (
                describe_teacher(&old.teacher),
                describe_teacher(&self.teacher),
            );
            differ.push(if was == now {
                // The same command, version and settings: name what does differ.
                format!(
                    "the teacher ({was}; {})",
                    teacher_changes(&old.teacher, &self.teacher)
                )
            } else {
                format!("the teacher ({was} there, {now} now)")
            });
        }
        if old.shard != self.shard {
            differ.push("the shard".into());
        }
        if !differ.is_empty() {
            bail!(
                "{} records another labelling run: {} differ; labels of two runs never mix: \
                 use a new --out folder",
                header.display(),
                differ.join(", ")
            );
        }
        Ok(())
    }
}

fn one() -> u32 {
    1
}

impl LabelConfig {
    /// The most positions of `split` labelled (0 = all).
    pub fn limit_of(&self, split: Split) -> u64 {
        self.split_limits
            .get(split.name())
            .copied()
            .unwrap_or(self.limit)
    }
}

/// A teacher in one line, for messages.
fn describe_teacher(t: &TeacherInfo) -> String {
    format!(
        "`{}` version {}, {} visits, rules {}, komi {}{}",
        t.command,
        t.version,
        t.visits,
        t.rules,
        t.komi,
        if t.per_move { ", per move" } else { "" }
    )
}

/// What differs between two teachers [`describe_teacher`] describes alike: the networks
/// their `query_models` answers name, their git hash, the files their command names.
fn teacher_changes(old: &TeacherInfo, new: &TeacherInfo) -> String {
    let mut out = Vec::new();
    if old.models != new.models {
        out.push(format!(
            "its networks (query_models) {:?} there, {:?} now",
            old.models, new.models
        ));
    }
    if old.git_hash != new.git_hash {
        out.push(format!(
            "its git hash {} there, {} now",
            old.git_hash, new.git_hash
        ));
    }
    let files: std::collections::BTreeSet<&String> =
        old.files.keys().chain(new.files.keys()).collect();
    for f in files {
        let (a, b) = (old.files.get(f), new.files.get(f));
        if a != b {
            let show = |c: Option<&crate::util::checksum::Checksum>| {
                c.map_or("none".to_string(), |c| c.to_string())
            };
            out.push(format!("file {f}: {} there, {} now", show(a), show(b)));
        }
    }
    if out.is_empty() {
        out.push("its recorded identity".into());
    }
    out.join(", ")
}

/// A labelling folder.
pub type LabelDir = GamesDir<LabelConfig, LabelRow>;

/// The file of chunk `c` in `dir`.
pub fn chunk_path(dir: &Path, c: u32) -> PathBuf {
    dir.join("chunks").join(format!("chunk-{c:05}.akr"))
}

/// Where chunk `c` lies: its split and positions (counted among the labelled ones: the
/// record of position `j` is `j * every`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub split: Split,
    pub first: u64,
    pub count: u32,
}

/// The positions labelled of a split of `records` records: every `every`-th, at most
/// `limit` (0 = no limit).
pub fn labelled_count(records: u64, every: u32, limit: u64) -> u64 {
    let n = records.div_ceil(every.max(1) as u64);
    if limit > 0 { n.min(limit) } else { n }
}

/// The chunks of `sizes` (positions labelled per split, in order), numbered from 1.
pub fn spans(sizes: &[(Split, u64)], chunk: u32) -> Vec<Span> {
    let mut out = Vec::new();
    for &(split, n) in sizes {
        let mut first = 0;
        while first < n {
            let count = (n - first).min(chunk as u64) as u32;
            out.push(Span {
                split,
                first,
                count,
            });
            first += count as u64;
        }
    }
    out
}

/// How a run talks to its teacher.
#[derive(Debug, Clone)]
pub struct LabelOptions {
    /// Queries in flight at most (a teacher like KataGo batches across them).
    pub in_flight: usize,
    /// Longest wait for any answer.
    pub timeout: Duration,
    pub progress: bool,
}

/// The source dataset of a run, opened.
pub struct Source {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub splits: BTreeMap<&'static str, (MappedSplit, Histories)>,
    /// Each game's komi (from `games.csv`), where recorded.
    pub komi: Vec<Option<f32>>,
}

impl Source {
    /// Opens `dir`'s `splits` (reading every record once, for the histories).
    pub fn open(dir: &Path, splits: &[Split]) -> anyhow::Result<Source> {
        let manifest = Manifest::load(dir)?;
        let mut opened = BTreeMap::new();
        for &s in splits {
            let m = MappedSplit::open(dir, s)?;
            let h = Histories::of(&m)
                .with_context(|| format!("reading {}", format::split_path(dir, s).display()))?;
            opened.insert(s.name(), (m, h));
        }
        let komi = read_komi(&dir.join(&manifest.games_file))?;
        Ok(Source {
            dir: dir.to_path_buf(),
            manifest,
            splits: opened,
            komi,
        })
    }

    fn split(&self, s: Split) -> &(MappedSplit, Histories) {
        &self.splits[s.name()]
    }

    /// The data's fingerprint: the manifest's, or (for datasets built before it existed)
    /// one made of the split files' CRC-32s.
    pub fn fingerprint(&self) -> String {
        if !self.manifest.fingerprint.is_empty() {
            return self.manifest.fingerprint.clone();
        }
        let crcs: Vec<String> = self
            .splits
            .iter()
            .map(|(k, (m, _))| format!("{k}:{:08x}", m.header().crc))
            .collect();
        format!("crc:{}", crcs.join(","))
    }
}

/// The `komi` column of a dataset's `games.csv` (none where empty or absent).
fn read_komi(path: &Path) -> anyhow::Result<Vec<Option<f32>>> {
    let mut r =
        csv::Reader::from_path(path).with_context(|| format!("opening {}", path.display()))?;
    let col = r.headers()?.iter().position(|h| h == "komi");
    let mut out = Vec::new();
    for row in r.records() {
        let row = row.with_context(|| format!("reading {}", path.display()))?;
        out.push(col.and_then(|c| row.get(c)).and_then(|k| k.parse().ok()));
    }
    Ok(out)
}

/// What a run did.
pub struct LabelOutcome {
    /// Chunks labelled by this call.
    pub chunks_now: usize,
    /// Positions labelled by this call.
    pub positions_now: u64,
    pub queries_now: u64,
    pub seconds: f64,
    /// The dataset's manifest, when the folder is complete.
    pub manifest: Option<Manifest>,
}

/// Runs (or resumes) labelling into `out`: takes the finished chunks of `from`, labels this
/// run's missing chunks with `teacher`, and assembles the dataset when all are there.
pub fn run_label(
    config: &LabelConfig,
    source: &Source,
    teacher: &mut Teacher,
    out: &Path,
    from: &[PathBuf],
    options: &LabelOptions,
) -> anyhow::Result<LabelOutcome> {
    let dir = LabelDir::new(out);
    let Opened {
        header,
        old,
        mut rows,
    } = dir.open(config, &NoEngines)?;
    let all = spans(&sizes(source, config), config.chunk);
    for f in from {
        adopt(&dir, config, &all, f, &mut rows)?;
    }
    let planned = config.schedule().planned();
    let pending = dir.pending(planned, &rows);
    dir.start(&header, old.as_ref(), &pending)?;
    let start = Instant::now();
    let mut outcome = LabelOutcome {
        chunks_now: 0,
        positions_now: 0,
        queries_now: 0,
        seconds: 0.0,
        manifest: None,
    };
    if !pending.is_empty() {
        let mut labeller = Labeller::new(config, source, teacher, options);
        labeller.run(&dir, &all, &pending, &mut rows, &mut outcome)?;
    }
    outcome.seconds = start.elapsed().as_secs_f64();
    if config.shard.is_none() && rows.len() == all.len() {
        outcome.manifest = Some(assemble(out, config, source, &all, &rows)?);
    }
    Ok(outcome)
}

/// Positions labelled per split.
fn sizes(source: &Source, config: &LabelConfig) -> Vec<(Split, u64)> {
    config
        .splits
        .iter()
        .map(|&s| {
            let n = source.split(s).0.len() as u64;
            (s, labelled_count(n, config.every, config.limit_of(s)))
        })
        .collect()
}

/// Copies the finished chunks of folder `other` into `dir`: a shard of this run, or a run
/// that differs from it only in its splits and limits (its chunks that are this run's too,
/// record for record, are taken: a labelled prefix of a longer run).
fn adopt(
    dir: &LabelDir,
    config: &LabelConfig,
    all: &[Span],
    other: &Path,
    rows: &mut BTreeMap<u32, LabelRow>,
) -> anyhow::Result<()> {
    let theirs = LabelDir::new(other);
    let Some(h) = theirs.read_header()? else {
        bail!(
            "--from {}: not a labelling folder (no label.toml)",
            other.display()
        );
    };
    let mut mine = config.clone();
    // The splits and limits may differ: chunks are matched by what they hold.
    (mine.shard, mine.limit, mine.chunks) = (h.config.shard, h.config.limit, h.config.chunks);
    (mine.splits, mine.split_limits) = (h.config.splits.clone(), h.config.split_limits.clone());
    mine.check_same_run(&h.config, &theirs.header())
        .with_context(|| format!("--from {}", other.display()))?;
    // Chunks are matched by what they hold (split, first position, count), not by number:
    // under another --limit the same records may be another chunk.
    let ours: std::collections::HashMap<(Split, u64, u32), u32> = all
        .iter()
        .enumerate()
        .map(|(i, s)| ((s.split, s.first, s.count), i as u32 + 1))
        .collect();
    let (mut added, mut outside) = (0, 0);
    for row in theirs.read_rows()? {
        let Some(&chunk) = ours.get(&(row.split, row.first, row.positions)) else {
            outside += 1;
            continue;
        };
        if rows.contains_key(&chunk) {
            continue;
        }
        let bytes = read_chunk(other, &row)?;
        rows.insert(chunk, LabelRow { chunk, ..row });
        dir.record(&[(chunk_path(&dir.root, chunk), bytes.as_slice())], rows)?;
        added += 1;
    }
    crate::errln!(
        "took {added} labelled chunks from {}{}",
        other.display(),
        if outside > 0 {
            format!(" ({outside} beyond this run's --limit left)")
        } else {
            String::new()
        }
    );
    Ok(())
}

/// A finished chunk's file, checked against its row.
fn read_chunk(dir: &Path, row: &LabelRow) -> anyhow::Result<Vec<u8>> {
    crate::runs::folder::read_checked(
        &chunk_path(dir, row.chunk),
        row.crc32,
        row.positions,
        TEACHER_RECORD_SIZE,
        "labels.csv",
    )
}

/// Writes the labelled dataset into `out` from the chunk files: the split files (every
/// split, the unlabelled ones empty), the source's games table, then the manifest.
fn assemble(
    out: &Path,
    config: &LabelConfig,
    source: &Source,
    all: &[Span],
    rows: &BTreeMap<u32, LabelRow>,
) -> anyhow::Result<Manifest> {
    remove_dead_assemblies(out)?;
    let tmp = out.join(format!("dataset.tmp-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let mut counts = BTreeMap::new();
    for split in Split::ALL {
        let mut w = SplitWriter::create_version(&tmp, split, format::VERSION_TEACHER)?;
        let mut games = std::collections::BTreeSet::new();
        for (c, span) in all.iter().enumerate() {
            if span.split != split {
                continue;
            }
            let bytes = read_chunk(out, &rows[&(c as u32 + 1)])?;
            for r in bytes.chunks(TEACHER_RECORD_SIZE) {
                games.insert(u32::from_le_bytes([r[36], r[37], r[38], r[39]]));
            }
            w.push_encoded(&bytes)?;
        }
        let h = w.finish(games.len() as u32)?;
        counts.insert(
            split.name().to_string(),
            crate::dataset::build::SplitCounts {
                games: games.len() as u64,
                positions: h.count,
                crc32: h.crc,
            },
        );
    }
    let games_src = source.dir.join(&source.manifest.games_file);
    std::fs::copy(&games_src, tmp.join("games.csv"))
        .with_context(|| format!("copying {}", games_src.display()))?;
    let mut m = source.manifest.clone();
    let games = crate::dataset::gameset::DatasetGames::read(&source.dir)?.unwrap_or_default();
    let crcs = counts
        .iter()
        .map(|(k, c)| (k.clone(), (c.positions, c.crc32)))
        .collect();
    m.fingerprint = crate::dataset::gameset::fingerprint(&games, &crcs);
    m.format_version = format::VERSION_TEACHER;
    m.games = counts.values().map(|c| c.games).sum();
    m.positions = counts.values().map(|c| c.positions).sum();
    m.splits = counts;
    m.games_file = "games.csv".into();
    m.teacher = Some(LabelledFrom {
        teacher: config.teacher.clone(),
        source: config.data.clone(),
        source_fingerprint: config.data_fingerprint.clone(),
        policies_renormalised: rows.values().map(|r| r.renormalised as u64).sum(),
    });
    let json = serde_json::to_string_pretty(&m)?;
    // Every file in place before the manifest, which marks the dataset complete.
    for split in Split::ALL {
        let name = format::split_path(&tmp, split);
        std::fs::rename(&name, format::split_path(out, split))
            .with_context(|| format!("moving {} into {}", name.display(), out.display()))?;
    }
    std::fs::rename(tmp.join("games.csv"), out.join("games.csv"))?;
    crate::util::fsio::write_atomic(&out.join(format::MANIFEST_FILE), json.as_bytes())?;
    std::fs::remove_dir_all(&tmp).with_context(|| format!("removing {}", tmp.display()))?;
    Ok(m)
}

/// Removes the `dataset.tmp-PID` folders of assemblies killed before they finished (their
/// process gone): each holds a whole copy of the dataset, which the next assembly rewrites.
fn remove_dead_assemblies(out: &Path) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(out).with_context(|| format!("reading {}", out.display()))?;
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("dataset.tmp-"))
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && e.file_type().is_ok_and(|t| t.is_dir())
            && !crate::util::commit::alive(pid)
        {
            std::fs::remove_dir_all(e.path())
                .with_context(|| format!("removing {}", e.path().display()))?;
        }
    }
    Ok(())
}

/// What is known of one position being labelled.
struct Pending {
    label: Option<TeacherLabel>,
    /// Child queries not answered yet.
    children: u32,
}

/// One chunk being labelled.
struct Open {
    span: Span,
    positions: Vec<Pending>,
    done: u32,
    queries: u64,
    /// Positions whose policy was renormalised over akushu's legal points.
    renormalised: u32,
}

/// What a query in flight asks.
#[derive(Debug, Clone, Copy)]
struct Asked {
    chunk: u32,
    offset: u32,
    /// The move of a child query.
    slot: Option<u8>,
}

/// The labelling loop of one run.
struct Labeller<'a> {
    config: &'a LabelConfig,
    source: &'a Source,
    teacher: &'a mut Teacher,
    options: &'a LabelOptions,
    /// The fixed fields of every query.
    base: Query,
    /// The queries in flight by id, each with the turn it asks (the moves it sent), which
    /// its answer must name.
    in_flight: HashMap<String, (Asked, u64)>,
    backlog: VecDeque<Asked>,
    open: BTreeMap<u32, Open>,
}

impl<'a> Labeller<'a> {
    fn new(
        config: &'a LabelConfig,
        source: &'a Source,
        teacher: &'a mut Teacher,
        options: &'a LabelOptions,
    ) -> Self {
        let t = &config.teacher;
        let base = Query {
            rules: t.rules.clone().into(),
            board_x_size: (N as u32).into(),
            board_y_size: (N as u32).into(),
            max_visits: u64::from(t.visits).into(),
            include_policy: true.into(),
            include_ownership: true.into(),
            override_settings: OverrideSettings {
                report_winrates_as: "SIDETOMOVE".to_string().into(),
            }
            .into(),
            ..Query::default()
        };
        Labeller {
            config,
            source,
            teacher,
            options,
            base,
            in_flight: HashMap::new(),
            backlog: VecDeque::new(),
            open: BTreeMap::new(),
        }
    }

    fn run(
        &mut self,
        dir: &LabelDir,
        all: &[Span],
        pending: &[u32],
        rows: &mut BTreeMap<u32, LabelRow>,
        outcome: &mut LabelOutcome,
    ) -> anyhow::Result<()> {
        let total: u64 = pending
            .iter()
            .map(|&c| all[c as usize - 1].count as u64)
            .sum();
        let bar = crate::util::progress::progress_bar(total, self.options.progress, "positions");
        let started = Instant::now();
        let mut next = pending.iter().peekable();
        let mut next_offset = 0u32;
        loop {
            // Children first, so that open positions finish and chunks close early.
            while self.in_flight.len() < self.options.in_flight.max(1) {
                if let Some(a) = self.backlog.pop_front() {
                    self.ask(a).map_err(|e| self.stopped(e))?;
                    continue;
                }
                let Some(&&c) = next.peek() else { break };
                let span = all[c as usize - 1];
                if next_offset == 0 {
                    self.open.insert(
                        c,
                        Open {
                            span,
                            positions: (0..span.count)
                                .map(|_| Pending {
                                    label: None,
                                    children: 0,
                                })
                                .collect(),
                            done: 0,
                            queries: 0,
                            renormalised: 0,
                        },
                    );
                }
                self.ask(Asked {
                    chunk: c,
                    offset: next_offset,
                    slot: None,
                })
                .map_err(|e| self.stopped(e))?;
                next_offset += 1;
                if next_offset == span.count {
                    next.next();
                    next_offset = 0;
                }
            }
            if self.in_flight.is_empty() {
                break;
            }
            let answer = self
                .teacher
                .recv(self.options.timeout)
                .map_err(|e| self.stopped(e))?;
            if let Some(c) = self.take(answer)? {
                let o = self.open.remove(&c).expect("an open chunk");
                let row = self.finish_chunk(dir, c, o, rows)?;
                outcome.chunks_now += 1;
                outcome.positions_now += row.positions as u64;
                outcome.queries_now += row.queries;
                bar.inc(row.positions as u64);
                bar.set_message(format!(
                    "{:.1} positions/s",
                    outcome.positions_now as f64 / started.elapsed().as_secs_f64().max(1e-9)
                ));
                crate::util::commit::failpoint("label-chunk");
            }
        }
        bar.finish_and_clear();
        Ok(())
    }

    /// Sends the query `a` asks.
    fn ask(&mut self, a: Asked) -> anyhow::Result<()> {
        let span = self.open[&a.chunk].span;
        let record = self.record_of(a);
        let (split, hist) = self.source.split(span.split);
        let extra = a
            .slot
            .map(|s| Move::from_index(s as usize).expect("a slot"));
        let komi = match self.config.teacher.komi.as_str() {
            "game" => {
                let game = split.get(record)?.game as usize;
                self.source
                    .komi
                    .get(game)
                    .copied()
                    .flatten()
                    .unwrap_or(DEFAULT_KOMI)
            }
            k => k.parse::<f32>().expect("checked komi"),
        };
        let id = match a.slot {
            None => format!("{}:{}", a.chunk, a.offset),
            Some(s) => format!("{}:{}:{s}", a.chunk, a.offset),
        };
        let q = Query {
            id: id.clone().into(),
            komi: komi.into(),
            ..hist.query(record, extra, &self.base)
        };
        self.teacher.send(&serde_json::to_value(&q)?)?;
        let turn = q.moves.typed().map_or(0, Vec::len) as u64;
        self.in_flight.insert(id, (a, turn));
        self.open.get_mut(&a.chunk).expect("open").queries += 1;
        Ok(())
    }

    /// Takes one answer; returns the chunk it completed, if it did.
    fn take(&mut self, v: Value) -> anyhow::Result<Option<u32>> {
        let answer = Answer::read(&v)
            .map_err(|e| anyhow::anyhow!("teacher `{}` answered {e}", self.teacher.command()))?;
        let id = answer.id.typed().cloned();
        let asked = id.as_ref().and_then(|i| self.in_flight.get(i).copied());
        let Some((a, asked_turn)) = asked else {
            if answer.during_search() {
                return Ok(None);
            }
            bail!(
                "teacher `{}` answered {}, a query akushu did not ask or that was answered \
                 already; waiting for {}",
                self.teacher.command(),
                shorten(&v.to_string()),
                self.waiting_for()
            );
        };
        let what = self.describe(a);
        for (key, msg) in [("error", &answer.error), ("warning", &answer.warning)] {
            if !msg.is_absent() {
                let field = answer.field.typed().map_or("", String::as_str);
                bail!(
                    "teacher `{}` answered {what} with the {key} {msg}{}",
                    self.teacher.command(),
                    if field.is_empty() {
                        String::new()
                    } else {
                        format!(" (field {field})")
                    }
                );
            }
        }
        if answer.during_search() {
            return Ok(None);
        }
        self.in_flight.remove(id.as_deref().expect("known id"));
        let record = self.record_of(a);
        let (split, hist) = self.source.split(self.open[&a.chunk].span.split);
        let to_move = hist.to_move(record);
        let refused = |e: String| {
            anyhow::anyhow!("teacher `{}` answered {what}: {e}", self.teacher.command())
        };
        // The position asked is the one after every move sent: an answer for another turn
        // (a teacher analysing other turns, or mixing queries up) is another position's.
        let turn = &answer.turn_number;
        if !turn.is_absent() && turn.typed() != Some(&asked_turn) {
            return Err(refused(format!(
                "its turnNumber is {turn}, the position asked is turn {asked_turn} (after \
                 {asked_turn} moves): an answer for another position"
            )));
        }
        let legal = match a.slot {
            None => Some(split.get(record)?.legal_points()),
            Some(_) => None,
        };
        let (parsed, renormalised) =
            parse_answer(&answer, to_move, legal.as_ref()).map_err(refused)?;
        let per_move = self.config.teacher.per_move;
        let o = self.open.get_mut(&a.chunk).expect("open");
        o.renormalised += u32::from(renormalised);
        let p = &mut o.positions[a.offset as usize];
        match a.slot {
            None => {
                let mut label = parsed;
                if per_move {
                    label.moves = Some(Box::new(MoveValues {
                        winrate: [NO_SHARE; SLOTS],
                        score_lead: [NO_SCORE; SLOTS],
                    }));
                    for slot in 0..SLOTS {
                        if label.policy[slot] != NO_SHARE {
                            p.children += 1;
                            self.backlog.push_back(Asked {
                                slot: Some(slot as u8),
                                ..a
                            });
                        }
                    }
                }
                p.label = Some(label);
            }
            Some(slot) => {
                // The child's values are the opponent's: the mover's are their complements.
                let m = p
                    .label
                    .as_mut()
                    .and_then(|l| l.moves.as_mut())
                    .expect("a child follows its root");
                m.winrate[slot as usize] = share_to_u16(1.0 - parsed.winrate);
                m.score_lead[slot as usize] = score_to_i16(-parsed.score_lead);
                p.children -= 1;
            }
        }
        // A position is done when its root is in and no child is waiting or in flight.
        if p.label.is_some() && p.children == 0 {
            o.done += 1;
            if o.done == o.span.count {
                return Ok(Some(a.chunk));
            }
        }
        Ok(None)
    }

    fn record_of(&self, a: Asked) -> usize {
        ((self.open[&a.chunk].span.first + a.offset as u64) * self.config.every as u64) as usize
    }

    /// A query in words: the position (split, record, game, move) and the child move.
    fn describe(&self, a: Asked) -> String {
        let span = self.open[&a.chunk].span;
        let record = self.record_of(a);
        let at = match self.source.split(span.split).0.get(record) {
            Ok(p) => format!(" (game {}, move {})", p.game, p.move_number + 1),
            Err(_) => String::new(),
        };
        let child = a.slot.map_or(String::new(), |s| {
            format!(
                ", after {}",
                Move::from_index(s as usize).map_or("?".into(), |m| m.to_gtp())
            )
        });
        format!(
            "{} record {record}{at}{child} of {}",
            span.split.name(),
            self.source.dir.display()
        )
    }

    /// `e`, a teacher that stopped (on a query sent or an answer awaited), with the
    /// positions the run waited for: a teacher's end met on writing names them as one met
    /// on reading does.
    fn stopped(&self, e: anyhow::Error) -> anyhow::Error {
        e.context(format!(
            "labelling stopped; waiting for {}",
            self.waiting_for()
        ))
    }

    /// The first few queries in flight, in words.
    fn waiting_for(&self) -> String {
        let mut asked: Vec<Asked> = self.in_flight.values().map(|&(a, _)| a).collect();
        asked.sort_by_key(|a| (a.chunk, a.offset, a.slot));
        let shown: Vec<String> = asked.iter().take(3).map(|&a| self.describe(a)).collect();
        let more = asked.len().saturating_sub(shown.len());
        format!(
            "{}{}",
            shown.join("; "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    }

    /// Writes a labelled chunk's file, then its row.
    fn finish_chunk(
        &self,
        dir: &LabelDir,
        c: u32,
        o: Open,
        rows: &mut BTreeMap<u32, LabelRow>,
    ) -> anyhow::Result<LabelRow> {
        let split = &self.source.split(o.span.split).0;
        let mut bytes = Vec::with_capacity(o.span.count as usize * TEACHER_RECORD_SIZE);
        for (k, p) in o.positions.into_iter().enumerate() {
            let record = (o.span.first + k as u64) * self.config.every as u64;
            let mut pos = split.get(record as usize)?;
            pos.teacher = Some(Box::new(p.label.expect("a finished position")));
            bytes.extend_from_slice(&format::encode_any(&pos));
        }
        let row = LabelRow {
            chunk: c,
            split: o.span.split,
            first: o.span.first,
            positions: o.span.count,
            queries: o.queries,
            crc32: crc32fast::hash(&bytes),
            renormalised: o.renormalised,
        };
        rows.insert(c, row.clone());
        dir.record(&[(chunk_path(&dir.root, c), bytes.as_slice())], rows)?;
        Ok(row)
    }
}

/// The label in an answer to a position's own query (`legal`: the points akushu's rules
/// allow there) or the values of a child position (`None`), with ownership turned to
/// black's side; and whether its policy was renormalised: shares on points akushu forbids
/// (a stone, the ko point, a suicide) are left out and the rest scaled to sum to 1, as the
/// networks' softmax masks those points (a teacher's ko and suicide rules may differ).
fn parse_answer(
    v: &Answer,
    to_move: u8,
    legal: Option<&[bool; NN]>,
) -> Result<(TeacherLabel, bool), String> {
    // A rootInfo that is no object has none of its numbers.
    let no_info = RootInfo::default();
    let info = match &v.root_info {
        Field::Absent => return Err("no rootInfo".into()),
        Field::Typed(info) => info,
        Field::Other(_) => &no_info,
    };
    let num = |x: &Field<f64>, k: &str| -> Result<f64, String> {
        x.typed()
            .copied()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("rootInfo has no finite {k}"))
    };
    let winrate = num(&info.winrate, "winrate")?;
    if !(0.0..=1.0).contains(&winrate) {
        return Err(format!("win rate {winrate} is not in 0..1"));
    }
    let score_lead = num(&info.score.score_lead, "scoreLead")?;
    // Stored, a larger lead would be clamped into a plausible-looking label.
    if score_lead.abs() > MAX_SCORE_LEAD {
        return Err(format!(
            "score lead {score_lead} is beyond any 9x9 score (at most {MAX_SCORE_LEAD})"
        ));
    }
    let score_lead = score_lead as f32;
    let visits = match &info.visits {
        Field::Absent => 0,
        Field::Typed(n) => *n,
        other => return Err(format!("rootInfo's visits {other} is not a count")),
    };
    let mut label = TeacherLabel {
        policy: [NO_SHARE; SLOTS],
        winrate: winrate as f32,
        score_lead,
        visits,
        ownership: [0; NN],
        moves: None,
    };
    let Some(legal) = legal else {
        return Ok((label, false));
    };
    let player = info.current_player.typed().map(String::as_str);
    let expected = if to_move == 2 { "W" } else { "B" };
    if player.is_some_and(|p| p != expected) {
        return Err(format!(
            "its rootInfo says {} to move; the position has {expected} to move",
            player.unwrap_or("?")
        ));
    }
    let mut policy = numbers(&v.policy, "policy", SLOTS)?;
    if let Some((slot, p)) = policy
        .iter()
        .enumerate()
        .find(|(_, p)| **p < 0.0 && **p != -1.0)
    {
        return Err(format!("policy value {p} at {slot}"));
    }
    if policy.iter().all(|&p| p < 0.0) {
        return Err("a policy with no legal move".into());
    }
    // A policy is a distribution over the legal moves: one that is not has been scaled or
    // cut, and its shares would be stored as if they were probabilities.
    let sum: f64 = policy.iter().filter(|&&p| p >= 0.0).sum();
    if (sum - 1.0).abs() > POLICY_SUM_TOLERANCE {
        return Err(format!(
            "its policy's legal moves sum to {sum}, not 1: not a move distribution"
        ));
    }
    let forbidden: Vec<usize> = (0..NN).filter(|&q| !legal[q] && policy[q] >= 0.0).collect();
    let renormalised = !forbidden.is_empty();
    if renormalised {
        let kept: f64 = (0..SLOTS)
            .filter(|&q| q == NN || legal[q])
            .map(|q| policy[q].max(0.0))
            .sum();
        if kept <= 0.0 {
            let points: Vec<String> = forbidden
                .iter()
                .take(5)
                .map(|&q| Move::from_index(q).map_or("?".into(), |m| m.to_gtp()))
                .collect();
            return Err(format!(
                "its policy puts every share on points akushu's rules forbid here (a stone, \
                 the ko point or a suicide: {}{}): no move distribution is left",
                points.join(", "),
                if forbidden.len() > points.len() {
                    ", ..."
                } else {
                    ""
                }
            ));
        }
        for &q in &forbidden {
            policy[q] = -1.0;
        }
        for p in policy.iter_mut().filter(|p| **p >= 0.0) {
            *p /= kept;
        }
    }
    for (slot, &p) in policy.iter().enumerate() {
        label.policy[slot] = if p >= 0.0 {
            share_to_u16(p as f32)
        } else {
            NO_SHARE
        };
    }
    let own = numbers(&v.ownership, "ownership", NN)?;
    let sign = if to_move == 2 { -1.0 } else { 1.0 };
    for (o, &x) in label.ownership.iter_mut().zip(&own) {
        if !(-1.0..=1.0).contains(&x) {
            return Err(format!("ownership value {x} is not in -1..1"));
        }
        *o = (sign * x * OWNERSHIP_SCALE as f64).round() as i8;
    }
    Ok((label, renormalised))
}

/// An array field of `n` finite numbers (`key`: its name); one that holds something
/// else is named with the first value that is no number.
fn numbers(field: &Field<Vec<f64>>, key: &str, n: usize) -> Result<Vec<f64>, String> {
    let a: Vec<f64> = match field {
        Field::Typed(a) => a.clone(),
        Field::Other(Value::Array(a)) => {
            let bad = a.iter().find(|x| !x.is_number()).unwrap_or(&Value::Null);
            if a.len() == n {
                return Err(format!("{key} holds {bad}"));
            }
            // The length is the first thing wrong, as with an array of numbers.
            vec![0.0; a.len()]
        }
        _ => return Err(format!("no {key} array")),
    };
    if a.len() != n {
        return Err(format!(
            "a {key} of {} values, where a 9x9 board has {n}: is the teacher on another board size?",
            a.len()
        ));
    }
    match a.iter().find(|x| !x.is_finite()) {
        Some(x) => Err(format!("{key} holds {x}")),
        None => Ok(a),
    }
}

/// The checksum of every file `command` names (an argument that is an existing file): the
/// teacher's network and config. A network named inside an engine spec
/// (`--engine strong8:policy=nn:DIR`) counts too: each comma-separated part's value, less its
/// kind (`nn:`, `nnq7:`, ...), that is a file, or a model folder's `model.bpk`.
pub fn command_files(command: &str) -> BTreeMap<String, crate::util::checksum::Checksum> {
    let mut out = BTreeMap::new();
    let mut add = |path: &Path| {
        if path.is_file()
            && let Ok(bytes) = std::fs::read(path)
        {
            out.insert(
                path.display().to_string(),
                crate::util::checksum::Checksum::of(&bytes),
            );
        }
    };
    for arg in command.split_whitespace() {
        let arg = arg.trim_matches(|c| c == '"' || c == '\'');
        if Path::new(arg).is_file() {
            add(Path::new(arg));
            continue;
        }
        for part in arg.split(',') {
            let mut value = part.rsplit('=').next().unwrap_or(part);
            // `nn:DIR`, `sym8:nnq:DIR`: the kinds before the path.
            while !Path::new(value).exists()
                && let Some((_, rest)) = value.split_once(':')
            {
                value = rest;
            }
            let path = Path::new(value);
            if path.is_dir() {
                add(&path.join("model.bpk"));
            } else if path.is_file() && value != arg {
                add(path);
            }
        }
    }
    out
}
