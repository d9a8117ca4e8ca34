//! `akushu dataset build|label|stats|show`: game records to training data, labels from a
//! teacher engine (`label.rs`), and a look inside.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use crate::dataset::build::{self, BuildConfig, Manifest, SplitBy};
use crate::dataset::filter::RankScope;
use crate::dataset::record::{SearchTarget, TeacherLabel};
use crate::dataset::{MappedSplit, NO_POINT, Position, Split};
use crate::rules::{Move, N, NN};
use crate::sgf::{Superko, rank_text};

pub mod label;

#[derive(Debug, Subcommand)]
pub enum DatasetCommand {
    /// Build a dataset from SGF files, folders, archives (.tar, .tar.gz, .tar.xz) or .sgfs.
    #[command(after_help = "\
Examples:
  akushu dataset build --sgf ../shared/data/ogs9x9.tar.xz --index ../shared/data/ogs9x9_index.csv.xz \\
      --result-known --min-moves 20 --no-handicap --exclude-bots --min-rank 1d --rank-scope either \\
      --split-by shuffle --keep-duplicates --out data/paper    # as the shipped models' data
  akushu dataset build --sgf games/ --out data/mine --hold-out data/paper   # split by content
  akushu dataset build --sgf ../shared/data/engine9x9.tar.xz --limit 100 --out /tmp/sample")]
    Build(Box<BuildArgs>),
    /// Label every position with a teacher engine (KataGo's JSON analysis protocol): its
    /// policy, win rate, score lead, ownership and, with --per-move, every legal move's value.
    #[command(after_help = "\
Examples:
  akushu dataset label data/paper --splits test --limit 5000 --per-move \\
      --teacher \"katago analysis -model b6c96.bin.gz -config analysis.cfg\" --out data/paper-kata-test
  akushu dataset label data/paper --teacher \"akushu analysis --engine strong3\" --limit 100 --out data/paper-labels
  akushu eval --data data/paper-kata-test --truth teacher --model teacher --model models/default --png truth.png")]
    Label(Box<label::LabelArgs>),
    /// Counts and histograms of a dataset: games, positions, move numbers, ranks, skips.
    Stats(StatsArgs),
    /// Print one position and its target as diagrams.
    Show(ShowArgs),
}

#[derive(Debug, Clone, Args)]
pub struct BuildArgs {
    /// SGF inputs: files, folders (recursive), .tar/.tar.gz/.tar.xz archives, .sgfs files.
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub sgf: Vec<PathBuf>,
    /// Self-play folders written by `akushu selfplay` (a run's shards, or several runs)
    /// instead of SGF inputs: records with the search's visits, value and final ownership,
    /// split by a seeded hash of each game's seed (--seed, --validation, --test,
    /// --include-passes apply).
    #[arg(long, num_args = 1.., value_name = "DIR", conflicts_with_all = ["sgf", "index", "config"])]
    pub selfplay: Vec<PathBuf>,
    /// Output dataset directory, replaced atomically when the build completes: only an
    /// absent path, an empty directory or a dataset akushu built may be replaced.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Replace `--out` even when it is not a dataset akushu built (never an input).
    #[arg(long)]
    pub force: bool,
    /// TOML file with build settings and a `[filter]` section; flags override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Game index CSV (.csv, .csv.xz, .csv.gz): corrected ranks and bot flags by game id.
    #[arg(long, value_name = "FILE")]
    pub index: Option<PathBuf>,
    /// Minimum main-line moves (passes included).
    #[arg(long)]
    pub min_moves: Option<usize>,
    /// Maximum main-line moves.
    #[arg(long)]
    pub max_moves: Option<usize>,
    /// Drop handicap games (HA >= 2 or setup stones).
    #[arg(long)]
    pub no_handicap: bool,
    /// With --no-handicap, keep games with setup stones but HA < 2 (as the OGS index counts).
    #[arg(long)]
    pub allow_setup: bool,
    /// Drop games whose result is unknown or void.
    #[arg(long)]
    pub result_known: bool,
    /// Drop games with a bot (index flag, else a bot-like player name).
    #[arg(long)]
    pub exclude_bots: bool,
    /// Lowest rank, e.g. 1d or 5k.
    #[arg(long)]
    pub min_rank: Option<String>,
    /// Highest rank.
    #[arg(long)]
    pub max_rank: Option<String>,
    /// Whether rank bounds apply to either player or both (default: either).
    #[arg(long, value_enum)]
    pub rank_scope: Option<RankScope>,
    /// Keep only these rules (comma-separated, matched inside RU, case-insensitive).
    #[arg(long, value_delimiter = ',')]
    pub rules: Vec<String>,
    /// Lowest komi kept (-10000 to 10000).
    #[arg(long, allow_hyphen_values = true, value_parser = crate::rules::komi_arg)]
    pub min_komi: Option<f32>,
    /// Highest komi kept (-10000 to 10000).
    #[arg(long, allow_hyphen_values = true, value_parser = crate::rules::komi_arg)]
    pub max_komi: Option<f32>,
    /// Also store positions whose move is a pass.
    #[arg(long)]
    pub include_passes: bool,
    /// Positional superko during replay (default: never).
    #[arg(long, value_enum)]
    pub superko: Option<Superko>,
    /// Recover what parses from broken files instead of skipping them.
    #[arg(long)]
    pub lenient: bool,
    /// Seed of the train/validation/test split (default: 1).
    #[arg(long)]
    pub seed: Option<u64>,
    /// How games go to splits: `content` (the default: a seeded hash of the game itself, so
    /// the same game lands in the same split in every dataset built with the same seed and
    /// shares, whatever the filters, inputs or de-duplication), `id` (a hash of the game id)
    /// or `shuffle` (a seeded shuffle: exact sizes, but a filter change moves games between
    /// splits; the shipped paper-like models' dataset used it).
    #[arg(long, value_enum)]
    pub split_by: Option<SplitBy>,
    /// A dataset (repeat the flag for more) whose test games must not be trained on: games
    /// with the same id or the same content hash go to this dataset's test split, so that
    /// dataset's test split stays leakage-free for models trained here.
    #[arg(long)]
    pub hold_out: Vec<PathBuf>,
    /// Share of games for validation (0 to 1; default: 0.1).
    #[arg(long, value_parser = crate::util::num::share_arg)]
    pub validation: Option<f64>,
    /// Share of games for test (0 to 1; default: 0.1).
    #[arg(long, value_parser = crate::util::num::share_arg)]
    pub test: Option<f64>,
    /// Worker threads (0 = one per core, the default; at most 256).
    #[arg(long, value_parser = crate::util::num::threads_arg)]
    pub threads: Option<usize>,
    /// Read only the first N records (quick samples; default: 0 = all).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Build as akushu did before copies were dropped: keep every copy of a game reached
    /// more than once (by two paths, archives or ids) and match `--hold-out` games by id
    /// only. With the old split rules it rebuilds the datasets the shipped models were
    /// trained on, game for game (their copies can straddle splits: evaluate with
    /// `eval --exclude-seen`).
    #[arg(long)]
    pub keep_duplicates: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Args)]
pub struct StatsArgs {
    /// Dataset directory.
    pub dir: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct ShowArgs {
    /// Dataset directory.
    pub dir: PathBuf,
    /// Position index within the split.
    #[arg(long)]
    pub index: usize,
    /// Which split.
    #[arg(long, value_enum, default_value = "train")]
    pub split: SplitArg,
}

#[derive(Debug, Clone, Copy, PartialEq, clap::ValueEnum)]
pub enum SplitArg {
    Train,
    Validation,
    Test,
}

impl From<SplitArg> for Split {
    fn from(s: SplitArg) -> Split {
        match s {
            SplitArg::Train => Split::Train,
            SplitArg::Validation => Split::Validation,
            SplitArg::Test => Split::Test,
        }
    }
}

pub fn run(cmd: DatasetCommand) -> Result<()> {
    match cmd {
        DatasetCommand::Build(a) => run_build(&a),
        DatasetCommand::Label(a) => label::run(&a),
        DatasetCommand::Stats(a) => run_stats(&a.dir),
        DatasetCommand::Show(a) => run_show(&a.dir, a.split.into(), a.index),
    }
}

/// The build configuration: TOML file (if any), then flags on top.
pub fn resolve_config(a: &BuildArgs) -> Result<BuildConfig> {
    let mut cfg = match &a.config {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            toml::from_str(&text).with_context(|| format!("{}: invalid config", p.display()))?
        }
        None => BuildConfig::default(),
    };
    if !a.sgf.is_empty() {
        cfg.inputs = a.sgf.clone();
    }
    if a.index.is_some() {
        cfg.index = a.index.clone();
    }
    let f = &mut cfg.filter;
    if let Some(v) = a.min_moves {
        f.min_moves = v;
    }
    if let Some(v) = a.max_moves {
        f.max_moves = v;
    }
    f.no_handicap |= a.no_handicap;
    f.allow_setup |= a.allow_setup;
    f.result_known |= a.result_known;
    f.exclude_bots |= a.exclude_bots;
    if a.min_rank.is_some() {
        f.min_rank = a.min_rank.clone();
    }
    if a.max_rank.is_some() {
        f.max_rank = a.max_rank.clone();
    }
    if let Some(v) = a.rank_scope {
        f.rank_scope = v;
    }
    if !a.rules.is_empty() {
        f.rules = a.rules.clone();
    }
    if a.min_komi.is_some() {
        f.min_komi = a.min_komi;
    }
    if a.max_komi.is_some() {
        f.max_komi = a.max_komi;
    }
    cfg.include_passes |= a.include_passes;
    cfg.parse.lenient |= a.lenient;
    if let Some(v) = a.superko {
        cfg.superko = v;
    }
    if let Some(v) = a.seed {
        cfg.seed = v;
    }
    if !a.hold_out.is_empty() {
        cfg.hold_out = a.hold_out.clone();
    }
    if let Some(v) = a.split_by {
        cfg.split_by = v;
    }
    if let Some(v) = a.validation {
        cfg.validation_fraction = v;
    }
    if let Some(v) = a.test {
        cfg.test_fraction = v;
    }
    if let Some(v) = a.threads {
        cfg.threads = v;
    }
    if let Some(v) = a.limit {
        cfg.limit = v;
    }
    cfg.keep_duplicates |= a.keep_duplicates;
    Ok(cfg)
}

fn run_build(a: &BuildArgs) -> Result<()> {
    if !a.selfplay.is_empty() {
        return run_selfplay_build(a);
    }
    let cfg = resolve_config(a)?;
    if cfg.inputs.is_empty() {
        bail!("dataset build: give SGF inputs with --sgf PATH... (or `inputs` in --config)");
    }
    crate::outln!("# akushu dataset build --out {}", a.out.display());
    // The full configuration goes into the manifest (its `config` field), which is named
    // once it is written: a build in which no game passes writes nothing. The terminal gets
    // one line.
    crate::outln!(
        "# config: {} input(s), seed {}, split by {:?}",
        cfg.inputs.len(),
        cfg.seed,
        cfg.split_by,
    );
    let m = build::build_into(&cfg, &a.out, !a.quiet, a.force)?;
    crate::outln!("records read: {}", m.records_read);
    crate::outln!("games read: {}", m.games_read);
    crate::outln!("duplicates dropped: {}", m.duplicates);
    if !m.fingerprint.is_empty() {
        crate::outln!("fingerprint: {}", m.fingerprint);
    }
    crate::outln!("games: {}", m.games);
    crate::outln!("positions: {}", m.positions);
    for (name, c) in &m.splits {
        crate::outln!("  {name}: {} games, {} positions", c.games, c.positions);
    }
    warn_empty_splits(&m.splits, m.games);
    print_counts("errors", &errors_only(&m));
    print_counts("filtered", &m.filtered);
    crate::outln!("elapsed: {:.1} s", m.elapsed_s);
    crate::outln!(
        "wrote {} (configuration in {})",
        a.out.display(),
        a.out.join("manifest.json").display()
    );
    Ok(())
}

/// `dataset build --selfplay DIR...`.
fn run_selfplay_build(a: &BuildArgs) -> Result<()> {
    use crate::arena::selfplay_run::{SelfplayDatasetConfig, build_dataset};
    let defaults = BuildConfig::default();
    let cfg = SelfplayDatasetConfig {
        seed: a.seed.unwrap_or(defaults.seed),
        validation_fraction: a.validation.unwrap_or(defaults.validation_fraction),
        test_fraction: a.test.unwrap_or(defaults.test_fraction),
        include_passes: a.include_passes,
    };
    crate::outln!(
        "# akushu dataset build --selfplay ({} folder(s)) --out {}: seed {}, validation {}, test {}",
        a.selfplay.len(),
        a.out.display(),
        cfg.seed,
        cfg.validation_fraction,
        cfg.test_fraction
    );
    let m = build_dataset(&a.selfplay, &cfg, &a.out, a.force)?;
    crate::outln!(
        "games: {} ({} found twice, taken once)",
        m.games,
        m.duplicates
    );
    crate::outln!("positions: {}", m.positions);
    for (name, c) in &m.splits {
        crate::outln!("  {name}: {} games, {} positions", c.games, c.positions);
    }
    warn_empty_splits(&m.splits, m.games);
    crate::outln!("passes not stored: {}", m.passes_dropped);
    crate::outln!("wrote {}", a.out.display());
    Ok(())
}

/// Warns about a split left empty (a dataset of a few games can put none in validation or
/// test): `train` needs a validation split and `eval` a test split.
fn warn_empty_splits(splits: &BTreeMap<String, build::SplitCounts>, games: u64) {
    if games == 0 {
        return;
    }
    for name in ["validation", "test"] {
        if splits.get(name).is_none_or(|c| c.games == 0) {
            crate::errln!(
                "warning: the {name} split holds no game of the {games} (`train` needs \
                 validation games, `eval` test games): rebuild with a larger --{name} share \
                 (e.g. 0.3) or from more games"
            );
        }
    }
}

fn print_counts(title: &str, counts: &BTreeMap<String, u64>) {
    let total: u64 = counts.values().sum();
    crate::outln!("{title}: {total}");
    for (k, v) in counts {
        crate::outln!("  {k}: {v}");
    }
}

/// The skips that were broken records or unreadable inputs: copies of a game dropped as
/// duplicates are not errors (they are counted on their own line).
fn errors_only(m: &Manifest) -> BTreeMap<String, u64> {
    m.errors
        .iter()
        .filter(|(k, _)| k.as_str() != "duplicate")
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

fn bar(n: u64, max: u64) -> String {
    let w = if max == 0 { 0 } else { (n * 40).div_ceil(max) };
    "#".repeat(w as usize)
}

fn run_stats(dir: &Path) -> Result<()> {
    let m = Manifest::load(dir)?;
    crate::outln!("dataset: {}", dir.display());
    if !m.fingerprint.is_empty() {
        crate::outln!("fingerprint: {}", m.fingerprint);
    }
    crate::outln!("games: {}", m.games);
    crate::outln!("positions: {}", m.positions);
    for (name, c) in &m.splits {
        crate::outln!("  {name}: {} games, {} positions", c.games, c.positions);
    }
    crate::outln!("records read: {}", m.records_read);
    crate::outln!("passes not stored: {}", m.passes_dropped);
    let mut moves: BTreeMap<u16, u64> = BTreeMap::new();
    let mut ranks: BTreeMap<i8, u64> = BTreeMap::new();
    let mut total = 0u64;
    for split in Split::ALL {
        let s = MappedSplit::open(dir, split)?;
        for p in s.iter() {
            let p = p?;
            total += 1;
            *moves.entry((p.move_number / 10).min(15)).or_default() += 1;
            let r = if p.to_move == 1 {
                p.black_rank
            } else {
                p.white_rank
            };
            *ranks.entry(rank_line(r)).or_default() += 1;
        }
    }
    if total != m.positions {
        bail!(
            "{}: manifest says {} positions, the split files hold {total}",
            dir.display(),
            m.positions
        );
    }
    crate::outln!("move number (positions):");
    let max = moves.values().copied().max().unwrap_or(0);
    for (b, n) in &moves {
        let label = if *b == 15 {
            "150+".to_string()
        } else {
            format!("{}-{}", b * 10, b * 10 + 9)
        };
        crate::outln!("  {label:>8} {n:>9} {}", bar(*n, max));
    }
    crate::outln!("rank of the player to move (positions):");
    let max = ranks.values().copied().max().unwrap_or(0);
    for (r, n) in &ranks {
        let label = if *r == WEAKEST_RANK_LINE {
            format!("{}-", rank_text(*r))
        } else {
            rank_text(*r)
        };
        crate::outln!("  {label:>8} {n:>9} {}", bar(*n, max));
    }
    crate::outln!("duplicates dropped: {}", m.duplicates);
    print_counts("skipped (errors)", &errors_only(&m));
    print_counts("skipped (filters)", &m.filtered);
    Ok(())
}

/// The weakest rank `dataset stats` lists on a line of its own (30k, the bottom of OGS's
/// scale); weaker ranks, which only broken records give (a mirrored scrape's `46k`), share
/// its line, shown as `30k-`.
const WEAKEST_RANK_LINE: i8 = -29;

/// The line of the rank histogram a position's rank is counted on.
fn rank_line(rank: i8) -> i8 {
    if rank == crate::sgf::props::RANK_UNKNOWN {
        rank
    } else {
        rank.max(WEAKEST_RANK_LINE)
    }
}

/// The board with `X`/`O`, the played point as `*`, and the ko point as `k`.
pub fn diagram(p: &Position) -> String {
    let cols = "ABCDEFGHJ";
    let mut s = String::new();
    s.push_str(&format!(
        "   {}\n",
        cols.chars().map(|c| format!("{c} ")).collect::<String>()
    ));
    for r in 0..N {
        s.push_str(&format!("{:>2} ", N - r));
        for c in 0..N {
            let i = r * N + c;
            let ch = if i == p.played as usize {
                '*'
            } else if i == p.ko as usize {
                'k'
            } else {
                ['.', 'X', 'O'][p.cells[i] as usize]
            };
            s.push(ch);
            s.push(' ');
        }
        s.push('\n');
    }
    s
}

/// A self-play record's search: the root's visit shares per point (per mille), its value,
/// and the game's final owners.
pub fn search_diagram(t: &SearchTarget) -> String {
    let shares = t.shares();
    let mut s = format!(
        "search: {} simulations, {} root visits, value {} for the side to move\n\
         visits (per mille of the root's; pass {}):\n",
        t.simulations,
        t.total_visits(),
        if t.value.is_nan() {
            "none".to_string()
        } else {
            format!("{:.3}", t.value)
        },
        (shares[NN] * 1000.0).round()
    );
    for r in 0..N {
        s.push_str("  ");
        for c in 0..N {
            let v = t.visits[r * N + c];
            let cell = if v == 0 {
                "   .".to_string()
            } else {
                format!("{:>4}", (shares[r * N + c] * 1000.0).round())
            };
            s.push_str(&cell);
        }
        s.push('\n');
    }
    match &t.ownership {
        Some(own) => {
            s.push_str(&format!(
                "final owners (area margin for black {}):\n",
                t.score
            ));
            for r in 0..N {
                s.push_str("   ");
                for c in 0..N {
                    s.push(['.', 'X', 'O', '?'][own[r * N + c].min(3) as usize]);
                    s.push(' ');
                }
                s.push('\n');
            }
        }
        None => s.push_str("final owners: not counted (resigned or capped)\n"),
    }
    s
}

/// A grid of 9 rows of `cell(i)`, each cell 6 characters wide, under `title`.
fn grid(title: &str, cell: impl Fn(usize) -> String) -> String {
    let mut s = format!("{title}\n");
    for r in 0..N {
        s.push_str("  ");
        for c in 0..N {
            s.push_str(&format!("{:>6}", cell(r * N + c)));
        }
        s.push('\n');
    }
    s
}

/// A teacher's label: its value and score lead, policy (per mille), ownership (black's
/// share, percent) and, where judged, each move's loss against the best (win rate, percent
/// points; `x` = illegal).
pub fn teacher_diagram(t: &TeacherLabel) -> String {
    let mut s = format!(
        "teacher: {} visits, win rate {:.3} and score lead {:+.1} for the side to move\n",
        t.visits, t.winrate, t.score_lead
    );
    let per_mille = |slot: usize| {
        t.policy_share(slot)
            .map_or("x".into(), |p| format!("{:.0}", p * 1000.0))
    };
    s.push_str(&grid(
        &format!("teacher policy (per mille; pass {}):", per_mille(NN)),
        per_mille,
    ));
    s.push_str(&grid("teacher ownership (black's share, percent):", |i| {
        format!("{:+.0}", t.owner_black(i) * 100.0)
    }));
    if t.moves.is_some() {
        let losses = t.winrate_losses();
        let loss = |slot: usize| losses[slot].map_or("x".into(), |l| format!("{:.1}", l * 100.0));
        let score = t.score_losses();
        s.push_str(&grid(
            &format!(
                "each move's loss against the best (win rate, percent points; pass {}, {:.1} points):",
                loss(NN),
                score[NN].unwrap_or(f32::NAN)
            ),
            loss,
        ));
    }
    s
}

/// The paper's target as a 9x9 grid of 0/1.
pub fn target_diagram(p: &Position) -> String {
    let t = p.target();
    let mut s = String::new();
    for r in 0..N {
        s.push_str("   ");
        for c in 0..N {
            s.push_str(&format!("{} ", t[r * N + c]));
        }
        s.push('\n');
    }
    s
}

fn run_show(dir: &Path, split: Split, index: usize) -> Result<()> {
    let s = MappedSplit::open(dir, split)?;
    if index >= s.len() {
        bail!(
            "{}: --index {index} is out of range: the {} split holds {} positions",
            dir.display(),
            split.name(),
            s.len()
        );
    }
    let p = s.get(index)?;
    let game = game_row(dir, p.game).unwrap_or_else(|| format!("game {}", p.game));
    let mv = |m: u8| match m {
        NO_POINT => "-".to_string(),
        m => Move::from_index(m as usize).map_or("?".into(), |m| m.to_gtp()),
    };
    crate::outln!("{} position {index} of {}", split.name(), s.len());
    crate::outln!("game: {game}");
    crate::outln!(
        "move {} by {}: {}   ko: {}   last moves: {}",
        p.move_number + 1,
        if p.to_move == 1 {
            "black (X)"
        } else {
            "white (O)"
        },
        mv(p.played),
        mv(p.ko),
        p.last_moves
            .iter()
            .map(|&m| mv(m))
            .collect::<Vec<_>>()
            .join(" ")
    );
    crate::outln!(
        "winner: {}   black {}   white {}",
        ["unknown/draw", "black", "white"][p.winner as usize],
        rank_text(p.black_rank),
        rank_text(p.white_rank)
    );
    crate::outln!("board (* = the move played):");
    crate::out!("{}", diagram(&p));
    if let Some(t) = &p.search {
        crate::out!("{}", search_diagram(t));
    }
    if let Some(t) = &p.teacher {
        crate::out!("{}", teacher_diagram(t));
    }
    if (p.played as usize) < NN {
        crate::outln!("target (0 = the move played):");
        crate::out!("{}", target_diagram(&p));
    } else {
        crate::outln!("target: pass (not one of the paper's 81 outputs)");
    }
    Ok(())
}

/// `id (source), result R` of game `g` from `games.csv` (columns found by name: human and
/// self-play datasets order them differently).
fn game_row(dir: &Path, g: u32) -> Option<String> {
    let mut rd = csv::Reader::from_path(dir.join("games.csv")).ok()?;
    let header = rd.headers().ok()?.clone();
    let col = |name: &str| header.iter().position(|h| h == name);
    let (id, source, result) = (col("id")?, col("source")?, col("result")?);
    let row = rd.records().nth(g as usize)?.ok()?;
    Some(format!(
        "{} ({}), result {}",
        row.get(id)?,
        row.get(source)?,
        row.get(result)?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sgf::props::RANK_UNKNOWN;

    /// Ranks below OGS's 30k (broken records) share the 30k line; real ranks and the
    /// unknown rank keep their own.
    #[test]
    fn ranks_weaker_than_thirty_kyu_share_one_line() {
        let rank = |t: &str| crate::sgf::parse_rank(t).unwrap();
        assert_eq!(rank_line(rank("46k")), rank("30k"));
        assert_eq!(rank_line(rank("30k")), rank("30k"));
        assert_eq!(rank_line(rank("29k")), rank("29k"));
        assert_eq!(rank_line(rank("3d")), rank("3d"));
        assert_eq!(rank_line(RANK_UNKNOWN), RANK_UNKNOWN);
        assert_eq!(rank_text(WEAKEST_RANK_LINE), "30k");
    }
}
