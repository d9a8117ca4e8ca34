//! One resumable, shardable folder of games, shared by matches, self-play and any later job
//! that plays or labels games one row at a time (an engine-labelling run: one query to an
//! engine, one row per position).
//!
//! A games folder holds a header (`match.toml`, `selfplay.toml`: the program, the full
//! resolved config, each engine's settings and the checksum of every network it loads),
//! `games.csv` (one row per finished game, sorted by game, rewritten atomically after every
//! game: the checkpoint), `sgf/game-NNNNN.sgf`, and whatever files a kind adds (self-play's
//! records). A game's files are written before its row, so a row always has its files and a
//! run killed at any point (`kill -9` included) resumes with no game lost or counted twice.
//!
//! A finished folder may be packed (`akushu runs pack`: `sgf/` as one `sgf.tar.xz`,
//! [`crate::util::pack`]); its readers read the archive, and a resume is refused until it
//! is unpacked.
//!
//! [`GamesDir::open`] is the one resume protocol: a packed folder is refused, a folder that
//! is not ours is refused, a different run is refused (the kind says what "the same run"
//! is), changed networks and engines recorded before the `history` key are refused, a
//! killed run's `NAME.tmp-PID` files are removed, and every finished row must belong to
//! this run's games and shard.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{Context, bail};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::util::checksum::Checksum;
use crate::util::fsio::{write_atomic, write_atomic_with};

/// `i/n`: this run plays the games `g` with `(g - 1) % n == i` (0-based `i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub fn owns(&self, game: u32) -> bool {
        (game - 1) % self.count == self.index
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let err = || format!("shard must be i/n with 0 <= i < n, got {s:?}");
        let (i, n) = s.split_once('/').ok_or_else(err)?;
        let index: u32 = i.trim().parse().map_err(|_| err())?;
        let count: u32 = n.trim().parse().map_err(|_| err())?;
        if count == 0 || index >= count {
            return Err(err());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Which games a run plays: games 1 to `games`, those of `shard` only when sharded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    pub games: u32,
    pub shard: Option<Shard>,
}

impl Schedule {
    /// The games this run is responsible for, in order.
    pub fn planned(&self) -> Vec<u32> {
        (1..=self.games)
            .filter(|&g| self.shard.is_none_or(|s| s.owns(g)))
            .collect()
    }

    /// Refuses a finished game that is not one of this run's: another shard's, or beyond
    /// the games asked for (a resume must ask for at least as many as are finished).
    fn check_finished(&self, game: u32, csv: &Path) -> anyhow::Result<()> {
        if let Some(s) = self.shard.filter(|s| !s.owns(game)) {
            bail!(
                "{}: game {game} does not belong to shard {s}",
                csv.display()
            );
        }
        if game > self.games {
            bail!(
                "{}: game {game} is finished but --games is {}: give at least {game} to resume",
                csv.display(),
                self.games
            );
        }
        Ok(())
    }
}

/// Where the program came from: written at the top of every games folder's header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramInfo {
    pub name: String,
    pub version: String,
    /// The command line that wrote the folder.
    pub command: String,
}

impl ProgramInfo {
    pub fn current() -> ProgramInfo {
        ProgramInfo {
            name: env!("CARGO_PKG_NAME").into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: std::env::args().collect::<Vec<_>>().join(" "),
        }
    }
}

/// The config of a kind of run that keeps its games in a folder: what the folder's header
/// records under [`RunConfig::KEY`], and what the folder's files are called.
pub trait RunConfig: Serialize + DeserializeOwned {
    /// The header's table holding the config (`match`, `selfplay`).
    const KEY: &'static str;
    /// The header's file name (`match.toml`).
    const FILE: &'static str;
    /// The folder's output kind (its marker, [`crate::util::output::mark_dir`]).
    const KIND: &'static str;
    /// The header file's first line (a TOML comment saying what the folder is).
    const COMMENT: &'static str;
    /// Folders created with the folder (others are created by the first file written).
    const SUBDIRS: &'static [&'static str] = &[];
    /// The checkpoint's file name: one row per finished game (or labelled chunk).
    const ROWS: &'static str = "games.csv";
    /// What a row is, in messages (`games`, `chunks`), and what finishing one is called.
    const UNITS: (&'static str, &'static str) = ("games", "to play");
    /// The engine specs the run plays: the header resolves and checksums them.
    fn specs(&self) -> Vec<&String>;
    /// Which games the run plays.
    fn schedule(&self) -> Schedule;
    /// Refuses to resume the run of `old` (recorded in `header`) with this config: the kind's
    /// own rule of which settings may change between runs of one folder.
    fn check_same_run(&self, old: &Self, header: &Path) -> anyhow::Result<()>;
}

/// A games folder's header: the program, the run's config, each in-process engine's spec
/// with every default filled in (JSON), so the folder records the engine settings even if a
/// default changes later, and the checksum of every model directory the engines load (see
/// [`EngineRecords`]), so a resume with changed weights is refused.
#[derive(Debug, Clone, PartialEq)]
pub struct RunHeader<C> {
    pub program: ProgramInfo,
    pub config: C,
    pub engines: BTreeMap<String, String>,
    pub models: BTreeMap<String, Checksum>,
    /// What each outside (`gtp:`) engine is, by spec (`arena::outside`): written by the
    /// match runner at the first game; empty in headers written before it was kept, in
    /// matches without outside engines, and in other kinds' headers.
    pub outside: BTreeMap<String, OutsideEngine>,
    /// The plan as fixed at the first game and every later change to it (matches write it;
    /// `None` in headers written before it was kept, and in other kinds' headers).
    pub plan: Option<PlanRecord>,
}

/// A run's plan record (`[plan]` in `match.toml`): the games planned when the folder's
/// first game was played, and one dated line for the plan as first written and for each
/// change a later run made to it (`--extend`), so whether a run was fixed before it started
/// can be read off the folder.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PlanRecord {
    /// Games planned by the run that played the first game (`None`: not recorded, the
    /// folder's first games were played before plans were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned_games: Option<u32>,
    /// `2026-05-01T10:00:00Z: ...` lines, oldest first.
    #[serde(default)]
    pub history: Vec<String>,
    /// One dated line per run that played games: the machine and the network kernels it
    /// played on (strength at a clock depends on both), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub machines: Vec<String>,
}

impl PlanRecord {
    /// Appends `what`, dated now (UTC).
    pub fn note(&mut self, what: &str) {
        self.history.push(format!("{}: {what}", utc_timestamp()));
    }
    /// Records, dated now, that a run plays its games on `machine` (the machine and its
    /// network kernels: `arena::identity::machine_and_kernels`).
    pub fn note_machine(&mut self, machine: &str) {
        self.machines
            .push(format!("{}: {machine}", utc_timestamp()));
    }
}

/// Now as `YYYY-MM-DDTHH:MM:SSZ` (UTC), from the system clock (a clock before 1970 reads as
/// 1970).
pub fn utc_timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// What a games folder records of the engines a run plays, told by the room that knows
/// engines (`arena::identity::SpecEngines`): the folder itself knows none, so it sits below
/// them.
pub trait EngineRecords {
    /// Each in-process spec of `specs` with every default filled in (JSON; `gtp:` players
    /// and specs that do not parse left out).
    fn resolved(&self, specs: &[&String]) -> BTreeMap<String, String>;
    /// The checksum of every model directory `specs` load, keyed as the spec names it.
    fn model_checksums(&self, specs: &[&String]) -> BTreeMap<String, Checksum>;
    /// Refuses to resume games whose engines were recorded as `engines` where today's
    /// engines would play them differently; `header` names the folder in the message.
    fn check_resume(&self, engines: &BTreeMap<String, String>, header: &Path)
    -> anyhow::Result<()>;
}

/// The records of a run whose players are no engine specs (a labelling run: its teacher is
/// a command, recorded by the run's own config): no engine settings, no networks, nothing
/// to check on resume.
pub struct NoEngines;

impl EngineRecords for NoEngines {
    fn resolved(&self, _: &[&String]) -> BTreeMap<String, String> {
        BTreeMap::new()
    }
    fn model_checksums(&self, _: &[&String]) -> BTreeMap<String, Checksum> {
        BTreeMap::new()
    }
    fn check_resume(&self, _: &BTreeMap<String, String>, _: &Path) -> anyhow::Result<()> {
        Ok(())
    }
}

/// An outside engine's identity in `match.toml` (`[outside_engines."gtp:..."]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutsideEngine {
    /// Its answer to GTP `name` (absent where it refused the command).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its answer to GTP `version` (absent where it refused the command).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Whether the games record the engine's visits a move (see the module's doc: never,
    /// today).
    pub reports_visits: bool,
    /// The program started: the command's first word as found on PATH (or as given, when
    /// it names a path).
    pub program: String,
    /// The SHA-256 of the program's bytes (hex, as `sha256sum` prints it).
    pub program_sha256: String,
    /// Games the folder held when this identity was first recorded (absent: recorded at
    /// the folder's first game). A folder played before identities were kept, or resumed
    /// with `--allow-engine-change`, says here that its earlier games may have had another
    /// engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_after_games: Option<u32>,
    /// The SHA-256 of every regular file the command line names, keyed by the file as the
    /// command line names it.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

impl<C: RunConfig + Clone> RunHeader<C> {
    /// The header for `config` written by this program, its engines told by `engines`.
    pub fn new(config: &C, engines: &impl EngineRecords) -> Self {
        let specs = config.specs();
        RunHeader {
            program: ProgramInfo::current(),
            config: config.clone(),
            engines: engines.resolved(&specs),
            models: engines.model_checksums(&specs),
            outside: BTreeMap::new(),
            plan: None,
        }
    }
}

// The header's TOML: `program`, the config under its kind's key, `engines`, `models`, then
// `outside_engines` where there are any and `plan` where there is one, in that order (what
// the folders written so far hold, so a header without outside engines is written as
// before); a header without `engines`, `models` or `outside_engines` reads them as empty,
// one without `plan` as none, and unknown keys are ignored.
impl<C: RunConfig> Serialize for RunHeader<C> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Header", 6)?;
        st.serialize_field("program", &self.program)?;
        st.serialize_field(C::KEY, &self.config)?;
        st.serialize_field("engines", &self.engines)?;
        st.serialize_field("models", &self.models)?;
        if self.outside.is_empty() {
            st.skip_field("outside_engines")?;
        } else {
            st.serialize_field("outside_engines", &self.outside)?;
        }
        match &self.plan {
            Some(plan) => st.serialize_field("plan", plan)?,
            None => st.skip_field("plan")?,
        }
        st.end()
    }
}

impl<'de, C: RunConfig> Deserialize<'de> for RunHeader<C> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields<C>(PhantomData<C>);
        impl<'de, C: RunConfig> serde::de::Visitor<'de> for Fields<C> {
            type Value = RunHeader<C>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a {} header", C::KIND)
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                use serde::de::Error;
                let (mut program, mut config) = (None, None);
                let (mut engines, mut models) = (BTreeMap::new(), BTreeMap::new());
                let mut outside = BTreeMap::new();
                let mut plan = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "program" => program = Some(map.next_value()?),
                        "plan" => plan = Some(map.next_value()?),
                        "engines" => engines = map.next_value()?,
                        "models" => models = map.next_value()?,
                        "outside_engines" => outside = map.next_value()?,
                        k if k == C::KEY => config = Some(map.next_value()?),
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(RunHeader {
                    program: program.ok_or_else(|| M::Error::missing_field("program"))?,
                    config: config.ok_or_else(|| M::Error::missing_field(C::KEY))?,
                    engines,
                    models,
                    outside,
                    plan,
                })
            }
        }
        d.deserialize_struct(
            "Header",
            &["program", "engines", "models", "outside_engines", "plan"],
            Fields(PhantomData),
        )
    }
}

/// A row of `games.csv`: one finished game (or, for a labelling job, one labelled item).
pub trait GameRow: Serialize + DeserializeOwned + Clone {
    /// The game's number, 1-based: the row's key and the order of the file.
    fn game(&self) -> u32;
}

/// The files of a games folder of runs configured by `C`, with rows `R`.
pub struct GamesDir<C, R> {
    pub root: PathBuf,
    kind: PhantomData<fn() -> (C, R)>,
}

/// What [`GamesDir::open`] found: this run's header, the header a previous run wrote, and
/// its finished games.
pub struct Opened<C, R> {
    pub header: RunHeader<C>,
    pub old: Option<RunHeader<C>>,
    pub rows: BTreeMap<u32, R>,
}

impl<C: RunConfig, R: GameRow> GamesDir<C, R> {
    pub fn new(root: &Path) -> Self {
        GamesDir {
            root: root.to_path_buf(),
            kind: PhantomData,
        }
    }
    pub fn header(&self) -> PathBuf {
        self.root.join(C::FILE)
    }
    pub fn csv(&self) -> PathBuf {
        self.root.join(C::ROWS)
    }
    pub fn sgf(&self, game: u32) -> PathBuf {
        self.root.join("sgf").join(format!("game-{game:05}.sgf"))
    }

    /// The header, or none when the folder has none yet.
    pub fn read_header(&self) -> anyhow::Result<Option<RunHeader<C>>> {
        let path = self.header();
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let header = toml::from_str(&text).with_context(|| {
            format!("parsing {} (a {} folder's record)", path.display(), C::KIND)
        })?;
        Ok(Some(header))
    }

    /// Writes the header atomically.
    pub fn write_header(&self, header: &RunHeader<C>) -> anyhow::Result<()> {
        let text = format!("{}\n{}", C::COMMENT, toml::to_string(header)?);
        write_atomic(&self.header(), text.as_bytes()).map_err(anyhow::Error::from)
    }

    /// The finished games, or none when the folder is new.
    pub fn read_rows(&self) -> anyhow::Result<Vec<R>> {
        if self.csv().exists() {
            read_rows(&self.csv())
        } else {
            Ok(Vec::new())
        }
    }

    /// Rewrites `games.csv` with `rows` (sorted by game) atomically: the checkpoint.
    pub fn write_rows<'a>(&self, rows: impl IntoIterator<Item = &'a R>) -> anyhow::Result<()>
    where
        R: 'a,
    {
        write_rows(&self.csv(), rows)
    }

    /// Opens the folder for a run of `config`, resuming what is there (see the module's
    /// doc). The new header keeps the first run's checksums of networks no longer readable.
    /// Creates the folder, marks it and removes a killed run's temporary files; the header
    /// itself is written by [`GamesDir::start`], once the run knows it will play.
    pub fn open(&self, config: &C, engines: &impl EngineRecords) -> anyhow::Result<Opened<C, R>>
    where
        C: Clone,
    {
        let out = &self.root;
        if out.exists() && !out.is_dir() {
            bail!("{} exists and is not a folder", out.display());
        }
        // A packed folder's games are in its archive: new ones written beside it would
        // leave the run in two forms.
        crate::util::pack::refuse_packed(out)?;
        let old = self.read_header()?;
        // A killed run's half-written files (`games.csv.tmp-PID`, `sgf/game-N.sgf.tmp-PID`,
        // the header's own `label.toml.tmp-PID` when the kill came before its first header):
        // their games are replayed, so the files are only litter, and they must not make the
        // folder look like one of unknown games below. Only in a folder of this kind (its
        // header or its marker): another's files are never touched.
        if old.is_some() || crate::util::output::dir_kind(out).as_deref() == Some(C::KIND) {
            crate::util::fsio::remove_stale_temps(out)
                .with_context(|| format!("cleaning {}", out.display()))?;
        }
        if old.is_none() && out.exists() && !crate::util::output::holds_only_scaffolding(out)? {
            bail!(
                "{} is not empty but has no {}: its games cannot be tied to players, so it is \
                 not resumed; use a new --out folder",
                out.display(),
                C::FILE
            );
        }
        let mut header = RunHeader::new(config, engines);
        if let Some(old) = &old {
            config.check_same_run(&old.config, &self.header())?;
            check_models(&old.models, &header.models, &self.header())?;
            engines.check_resume(&old.engines, &self.header())?;
            for (k, v) in &old.models {
                header.models.entry(k.clone()).or_insert(*v);
            }
            header.plan = old.plan.clone();
        }
        std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
        for sub in C::SUBDIRS {
            std::fs::create_dir_all(out.join(sub))
                .with_context(|| format!("creating {}", out.join(sub).display()))?;
        }
        crate::util::output::mark_dir(out, C::KIND)
            .with_context(|| format!("marking {}", out.display()))?;
        let mut rows = BTreeMap::new();
        for row in self.read_rows()? {
            config.schedule().check_finished(row.game(), &self.csv())?;
            rows.insert(row.game(), row);
        }
        Ok(Opened { header, old, rows })
    }

    /// The games of `planned` not finished in `rows`, saying so when a run resumes.
    pub fn pending(&self, planned: Vec<u32>, rows: &BTreeMap<u32, R>) -> Vec<u32> {
        let pending: Vec<u32> = planned
            .into_iter()
            .filter(|g| !rows.contains_key(g))
            .collect();
        if !rows.is_empty() {
            let (units, verb) = C::UNITS;
            crate::errln!(
                "resuming {}: {} {units} already finished, {} {verb}",
                self.root.display(),
                rows.len(),
                pending.len()
            );
        }
        pending
    }

    /// Writes the header of a run that plays `pending` games (a new folder's, or a resume's
    /// that plays). A resume that plays nothing leaves a finished folder's record as it is:
    /// its command line stays the one that played the games.
    pub fn start(
        &self,
        header: &RunHeader<C>,
        old: Option<&RunHeader<C>>,
        pending: &[u32],
    ) -> anyhow::Result<()> {
        if old.is_none() || !pending.is_empty() {
            self.write_header(header)?;
        }
        Ok(())
    }

    /// Records a finished game: its files (each written atomically), then every row so far,
    /// which marks the game done.
    pub fn record(
        &self,
        files: &[(PathBuf, &[u8])],
        rows: &BTreeMap<u32, R>,
    ) -> anyhow::Result<()> {
        for (path, bytes) in files {
            write_atomic(path, bytes)?;
        }
        self.write_rows(rows.values())
    }
}

/// A finished unit's file (a game's records, a labelled chunk), checked against what its
/// row says: `records` records of `record_size` bytes with CRC-32 `crc32`; `rows` names the
/// rows' file for the message.
pub fn read_checked(
    path: &Path,
    crc32: u32,
    records: u32,
    record_size: usize,
    rows: &str,
) -> anyhow::Result<Vec<u8>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let found = crc32fast::hash(&bytes);
    if found != crc32 || bytes.len() != records as usize * record_size {
        bail!(
            "{}: {} bytes with CRC-32 {found:08x}; {rows} says {records} records with \
             {crc32:08x}: the file is damaged",
            path.display(),
            bytes.len(),
        );
    }
    Ok(bytes)
}

/// Reads the rows of a games file. A row that does not parse is an error naming the line:
/// the file is written atomically, so a bad row means someone edited it.
pub fn read_rows<R: DeserializeOwned>(path: &Path) -> anyhow::Result<Vec<R>> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("opening {}", path.display()))?;
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize().enumerate() {
        let row: R =
            row.with_context(|| format!("{}: row {} (line {})", path.display(), i + 1, i + 2))?;
        rows.push(row);
    }
    Ok(rows)
}

/// Writes `rows` (sorted by game) to `path` atomically.
pub fn write_rows<'a, R: GameRow + 'a>(
    path: &Path,
    rows: impl IntoIterator<Item = &'a R>,
) -> anyhow::Result<()> {
    let mut sorted: Vec<&R> = rows.into_iter().collect();
    sorted.sort_by_key(|r| r.game());
    write_atomic_with(path, |w| {
        let mut writer = csv::Writer::from_writer(w);
        for r in &sorted {
            writer.serialize(r).map_err(std::io::Error::other)?;
        }
        writer.flush()
    })
    .map_err(anyhow::Error::from)
}

/// Refuses to resume a folder whose recorded models have other weights now: the new games
/// would come from another engine than the old.
fn check_models(
    old: &BTreeMap<String, Checksum>,
    new: &BTreeMap<String, Checksum>,
    path: &Path,
) -> anyhow::Result<()> {
    // By what each folder is: a resume may spell a folder another way.
    let real = |d: &str| {
        std::fs::canonicalize(d).map_or_else(|_| d.to_string(), |p| p.display().to_string())
    };
    let new: BTreeMap<String, &Checksum> = new.iter().map(|(d, c)| (real(d), c)).collect();
    for (dir, was) in old {
        match new.get(&real(dir)).copied() {
            Some(now) if now != was => bail!(
                "{}: model {dir} has changed since these games were played (recorded {was}, \
                 now {now}): resuming would mix two engines; use a new --out folder",
                path.display()
            ),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        let t = utc_timestamp();
        assert_eq!(t.len(), 20, "{t}");
        assert!(
            t.starts_with("20") && t.ends_with('Z') && &t[10..11] == "T",
            "{t}"
        );
        let mut plan = PlanRecord::default();
        plan.note("planned 10 games");
        assert!(
            plan.history[0].ends_with("Z: planned 10 games"),
            "{:?}",
            plan.history
        );
    }

    #[test]
    fn shards_partition_the_games() {
        let s: Shard = "1/3".parse().unwrap();
        assert_eq!(s.to_string(), "1/3");
        assert!("3/3".parse::<Shard>().is_err() && "x".parse::<Shard>().is_err());
        let mut all = Vec::new();
        for i in 0..3 {
            let shard = Some(Shard { index: i, count: 3 });
            all.extend(Schedule { games: 10, shard }.planned());
        }
        all.sort();
        assert_eq!(all, (1..=10).collect::<Vec<_>>());
    }
}
