//! `akushu eval`: the pruning error-rate curve of a model (and baselines) on a dataset split:
//! both forms (all 81 points, legal moves only), top-1/5/10, the largest x under 10% and 5%
//! error, a CSV per model and a PNG with the paper's reference points; breakdowns of the same
//! figures by game phase and by the mover's rank (`--by`), and one row per position
//! (`--positions-csv`) to see where a pruner errs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::HumanCount;
use serde::Serialize;

use crate::dataset::Position;
use crate::net::NetPruner;
use crate::net::baselines::{OracleBaseline, RandomBaseline, RuleBaseline};
use crate::net::curve::{Curve, MoveRanks, PositionScorer, PrunerScorer, rank_each};
use crate::net::data::{SgfSkip, SplitChoice, read_choice, sgf_positions, synthetic_split};
use crate::net::train::sample;
use crate::prune::name::PrunerName;
use crate::rules::NN;
use crate::search::pruners::make_pruner;

use crate::util::output::{FileKind, file_target, write_file};

#[derive(Debug, Clone, Args)]
pub struct EvalArgs {
    /// A model directory (e.g. `models/default`, or `nn:DIR`), `nnq:DIR` for a CNN evaluated
    /// with 8-bit integer convolutions, `sym8:DIR` / `sym8:nnq:DIR` for a CNN whose
    /// probabilities are averaged over the 8 board symmetries (8 times the cost; `sym4:` and
    /// `sym2:` over the first 4 or 2), any other pruner an engine spec names (`rule`,
    /// `kakeme`, `none`), `random` / `random:SEED` / `rules` for the baselines, or `oracle`
    /// (rates the recorded move best: the best curve any ranking can draw).
    /// Repeat to compare several on one plot; the first is the main one.
    #[arg(long, required_unless_present = "redraw")]
    pub model: Vec<EvalModel>,
    /// Dataset directory written by `akushu dataset build`.
    #[arg(long, required_unless_present_any = ["synthetic_games", "sgf", "redraw"])]
    pub data: Option<PathBuf>,
    /// Redraw `--png` from curve CSVs an earlier `eval --csv` wrote, evaluating nothing:
    /// `LABEL=FILE`, repeatable, the first is the main curve (its legal-moves form is drawn
    /// too). E.g. `--redraw cnn=models/x-cnn.csv --redraw rules=models/x-rules.csv`.
    #[arg(long, value_name = "LABEL=FILE", conflicts_with_all = ["model", "data", "sgf", "synthetic_games", "csv", "summary", "by", "positions_csv"], requires = "png")]
    pub redraw: Vec<String>,
    /// Evaluate on SGF records instead (files, folders, .tar.xz archives; repeatable), e.g. a
    /// second source such as `../shared/data/engine9x9.tar.xz`. `--split` is ignored. Each
    /// game is known by its content hash, as a dataset built from it knows it, so a model's
    /// training games among them are refused as with `--data`.
    #[arg(long)]
    pub sgf: Vec<PathBuf>,
    /// Evaluate on synthetic random games instead (smoke runs).
    #[arg(long, value_parser = crate::util::num::synthetic_games_arg)]
    pub synthetic_games: Option<usize>,
    /// Which split.
    #[arg(long, value_enum, default_value = "test")]
    pub split: SplitChoice,
    /// Evaluate a seeded sample of at most this many positions (0 = all).
    #[arg(long, default_value_t = 0)]
    pub max_positions: usize,
    /// Seed of the sample and of the random/rule baselines' tie-breaking.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The curve as CSV (`pruned,error_all,error_legal`); with several models, one file per
    /// model named `FILE` with `-<model>` before the extension (the first keeps `FILE`).
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// One summary row per model (CSV).
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// The curves as a chart with the paper's reference points: a PNG, or an SVG when the
    /// name ends in `.svg`. Every model's all-points curve is solid, its legal-moves curve
    /// dashed in the same colour; the title names the data and the number of positions.
    #[arg(long)]
    pub png: Option<PathBuf>,
    /// The chart's title (default: what was evaluated and on how many positions).
    #[arg(long, requires = "png")]
    pub title: Option<String>,
    /// The chart's size in pixels, `WIDTHxHEIGHT`.
    #[arg(long, default_value = "900x600", value_parser = crate::report::plot::parse_size, requires = "png")]
    pub chart_size: (u32, u32),
    /// The chart's x axis, `FROM..TO` points pruned within 0..80 (default the whole curve):
    /// a zoom where curves that differ little part, e.g. `55..80` for the all-points curves
    /// of networks alike.
    #[arg(long, value_name = "FROM..TO", value_parser = x_range_arg, requires = "png")]
    pub x_range: Option<(u32, u32)>,
    /// The chart's top error rate (default 1): curves are cut where they cross it.
    #[arg(long, value_name = "E", value_parser = y_max_arg, requires = "png")]
    pub y_max: Option<f64>,
    /// Where model networks run: `cpu` (the plain-Rust evaluator the search uses, all cores)
    /// or `gpu` / `vulkan[:N]` / `cuda[:N]` (burn on the GPU, batches of 1024; builds with
    /// `--features gpu` or `--features cuda`).
    /// Both give the same curve to float rounding. Baselines and pruners without a network
    /// always run on the CPU; 8-bit and symmetry-averaged networks run only there.
    #[arg(long, default_value = "cpu")]
    pub device: crate::net::DeviceChoice,
    /// Replace `--csv`/`--summary`/`--png` files even when akushu did not write them.
    #[arg(long)]
    pub force: bool,
    /// Evaluate a model even when some evaluated games are among its training games (its
    /// figures are then inflated; the overlap is printed beside them and in the summary).
    /// Without it such an evaluation is refused.
    #[arg(long)]
    pub allow_overlap: bool,
    /// Evaluate only the games that none of the listed models trained on (their
    /// `training_games.hashes`): one clean set for every model compared; the number of
    /// games left out is printed.
    #[arg(long, conflicts_with = "allow_overlap")]
    pub exclude_seen: bool,
    /// Break each model's figures down by `phase` (the move number: 1-10, 11-20, 21-40,
    /// 41-60, 61+) and/or `rank` (the rank the record gives the player to move: 10k and
    /// weaker, 9k-5k, 4k-1k, 1d-2d, 3d-4d, 5d and up, unknown). Per group: positions,
    /// top-1/5/10, error at x=30 (all 81 points) and the largest x with error <= 10% (all
    /// points, legal moves); groups with no position are left out. Repeat the flag or give
    /// both: `--by phase,rank`. Runs on the CPU evaluator.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub by: Vec<BreakdownBy>,
    /// The `--by` tables as CSV: one row per model and group
    /// (`model,by,group,positions,passes_skipped,top1,top5,top10,error_all_at_30,x_at_10_all,x_at_10_legal`).
    #[arg(long, requires = "by")]
    pub breakdown_csv: Option<PathBuf>,
    /// One CSV row per evaluated position and model (pass moves are not ranked, so not
    /// listed): `game` (the position's game number in the dataset, or in reading order for
    /// `--sgf`), `game_hash` (the dataset's content hash of the game; empty for `--sgf` and
    /// synthetic games), `move` (1-based move number), `to_move` (B/W), `rank` (the mover's
    /// recorded rank, `?` when none), `played` (GTP vertex), `rank_all` / `rank_legal` (the
    /// played move's place in the model's worst-first order of all 81 points / of the legal
    /// moves: 0 = rated worst; pruning x points loses the move when the place is below x),
    /// `rank_best` (its place among the legal moves best first: 0 = the model's top-1),
    /// `legal_moves`, `pruned_at_30` (`rank_all < 30`: pruned at the paper's x = 30) and
    /// `top1` (the legal move the model rates best, GTP). Runs on the CPU evaluator.
    #[arg(long)]
    pub positions_csv: Option<PathBuf>,
    /// The engine-judged curve instead of the paper's, on a dataset labelled per move
    /// (`dataset label --per-move`): per x, the share of positions where a move the teacher
    /// rates within LOSS of its best is pruned (`teacher`: 0.02 win rate; `teacher:LOSS`;
    /// `teacher:score:POINTS`), the share of good moves pruned, the bad moves left, and the
    /// paper's error on the same positions. `--model teacher` is the teacher's own policy.
    #[arg(long, value_name = "teacher[:LOSS]", conflicts_with_all = ["csv", "summary", "by", "positions_csv", "redraw", "sgf", "synthetic_games"])]
    pub truth: Option<crate::net::truth::Truth>,
    /// Also each network's value head against the evaluated games' results: log-loss (mean
    /// binary cross-entropy) and the share of winners called, over the positions whose
    /// result is known (networks without a value head say so).
    #[arg(long, conflicts_with = "truth")]
    pub value: bool,
    /// With --truth: every model's curve as CSV
    /// (`model,truth,x,positions,good_lost,good_pruned,bad_left,paper`).
    #[arg(long, requires = "truth")]
    pub truth_csv: Option<PathBuf>,
}

/// What `--by` splits the evaluated positions by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BreakdownBy {
    /// Game phase: the move number (1-based) in bands 1-10, 11-20, 21-40, 41-60, 61+.
    Phase,
    /// The recorded rank of the player to move, in bands; `unknown` when it has none.
    Rank,
}

/// Phase bands by 1-based move number: the opening's first ten moves apart (they are the
/// most regular), then bands that widen as fewer games last that long (the median 9x9 game
/// of the human datasets ends near move 50).
const PHASES: [(u32, u32, &str); 5] = [
    (1, 10, "1-10"),
    (11, 20, "11-20"),
    (21, 40, "21-40"),
    (41, 60, "41-60"),
    (61, u32::MAX, "61+"),
];

/// Rank bands on akushu's numeric scale (1k = 0, 1d = 1): single kyu and low dan ranks hold
/// most of the human records, so they are split finer than the tails.
const RANK_BANDS: [(i8, i8, &str); 6] = [
    (i8::MIN + 1, -9, "<=10k"),
    (-8, -4, "9k-5k"),
    (-3, 0, "4k-1k"),
    (1, 2, "1d-2d"),
    (3, 4, "3d-4d"),
    (5, i8::MAX, "5d+"),
];

impl BreakdownBy {
    fn name(self) -> &'static str {
        match self {
            BreakdownBy::Phase => "phase",
            BreakdownBy::Rank => "rank",
        }
    }

    /// The groups' labels, in table order.
    fn groups(self) -> Vec<&'static str> {
        match self {
            BreakdownBy::Phase => PHASES.iter().map(|b| b.2).collect(),
            BreakdownBy::Rank => RANK_BANDS.iter().map(|b| b.2).chain(["unknown"]).collect(),
        }
    }

    /// The index in [`BreakdownBy::groups`] of `pos`'s group.
    fn group(self, pos: &Position) -> usize {
        match self {
            BreakdownBy::Phase => {
                let m = move_of(pos);
                PHASES
                    .iter()
                    .position(|&(lo, hi, _)| (lo..=hi).contains(&m))
                    .expect("the phases cover every move number")
            }
            BreakdownBy::Rank => {
                let r = mover_rank(pos);
                RANK_BANDS
                    .iter()
                    .position(|&(lo, hi, _)| (lo..=hi).contains(&r))
                    .unwrap_or(RANK_BANDS.len())
            }
        }
    }
}

/// The 1-based number of the move played at `pos` (as game viewers number it).
fn move_of(pos: &Position) -> u32 {
    pos.move_number as u32 + 1
}

/// The recorded rank of the player to move (`RANK_UNKNOWN` when none).
fn mover_rank(pos: &Position) -> i8 {
    match pos.color() {
        crate::rules::Color::White => pos.white_rank,
        crate::rules::Color::Black => pos.black_rank,
    }
}

/// The curve CSV: its header is how an earlier curve file is recognised.
const CURVE_CSV: FileKind = FileKind {
    name: "curve CSV",
    signature: b"pruned,error_all,error_legal\n",
    mark: None,
};
/// The summary CSV.
const SUMMARY_CSV: FileKind = FileKind {
    name: "eval summary CSV",
    signature: b"model,positions,",
    mark: None,
};
/// The breakdown CSV.
const BREAKDOWN_CSV: FileKind = FileKind {
    name: "eval breakdown CSV",
    signature: b"model,by,group,positions,",
    mark: None,
};
/// The per-position CSV.
const POSITIONS_CSV: FileKind = FileKind {
    name: "eval positions CSV",
    signature: b"model,game,game_hash,move,",
    mark: None,
};
/// A PNG chart: every PNG starts so, and akushu's charts also carry its text chunk, so a
/// picture from elsewhere is never replaced.
const PNG: FileKind = FileKind {
    name: "PNG chart",
    signature: b"\x89PNG\r\n\x1a\n",
    mark: Some(crate::report::plot::is_akushu_chart),
};
/// An SVG chart akushu drew: it starts with akushu's comment.
const SVG: FileKind = FileKind {
    name: "SVG chart",
    signature: b"<!-- akushu chart -->",
    mark: None,
};

/// The output kind of a chart path: SVG by extension, else PNG.
pub(crate) fn chart_kind(path: &Path) -> FileKind {
    if crate::report::plot::is_svg(path) {
        SVG
    } else {
        PNG
    }
}

impl EvalArgs {
    /// Every path the command reads: outputs must stay clear of them.
    pub(crate) fn inputs(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self.sgf.clone();
        v.extend(self.data.iter().cloned());
        // A model directory's own files are inputs; results may go beside them (the shipped
        // models keep their eval CSVs and plots there).
        for dir in self.model.iter().filter_map(EvalModel::model_dir) {
            v.push(crate::net::model::config_path(dir));
            let weights = crate::net::model::weights_path(dir);
            v.push(crate::net::model::checksum_path(&weights));
            v.push(weights);
        }
        v
    }

    /// Refuses, before anything is evaluated, a network the GPU evaluator cannot run: it
    /// runs burn's float model of a directory, without 8-bit convolutions or symmetry
    /// averaging.
    fn check_devices(&self) -> anyhow::Result<()> {
        if !self.device.is_gpu() {
            return Ok(());
        }
        for model in &self.model {
            if let EvalModel::Pruner(PrunerName::Network(net)) = model
                && (net.views > 1 || net.weights.quantized())
            {
                anyhow::bail!(
                    "--model {model}: 8-bit and symmetry-averaged networks run on the CPU \
                     evaluator only; evaluate it with --device cpu"
                );
            }
        }
        Ok(())
    }

    /// Checks every output before the (long) evaluation starts, so a refused path costs
    /// nothing.
    fn check_outputs(&self) -> anyhow::Result<()> {
        let inputs = self.inputs();
        if let Some(base) = &self.csv {
            for (i, label) in labels_of(&self.model).iter().enumerate() {
                file_target(
                    &csv_path_for(base, i, label),
                    CURVE_CSV,
                    self.force,
                    &inputs,
                )?;
            }
        }
        if let Some(p) = &self.summary {
            file_target(p, SUMMARY_CSV, self.force, &inputs)?;
        }
        if let Some(p) = &self.png {
            file_target(p, chart_kind(p), self.force, &inputs)?;
        }
        if let Some(p) = &self.breakdown_csv {
            file_target(p, BREAKDOWN_CSV, self.force, &inputs)?;
        }
        if let Some(p) = &self.positions_csv {
            file_target(p, POSITIONS_CSV, self.force, &inputs)?;
        }
        super::eval_truth::check_output(self, &inputs)?;
        if self.device.is_gpu() && (!self.by.is_empty() || self.positions_csv.is_some()) {
            anyhow::bail!(
                "--by and --positions-csv rank every position with the CPU evaluator: leave \
                 out --device {} (the CPU gives the same figures to float rounding)",
                self.device
            );
        }
        Ok(())
    }
}

/// One row of the curve CSV.
#[derive(Debug, Serialize)]
struct CurveRow {
    pruned: usize,
    error_all: f64,
    error_legal: f64,
}

/// One row of the summary CSV.
#[derive(Debug, Serialize)]
pub struct SummaryRow {
    pub model: String,
    pub positions: u64,
    pub passes_skipped: u64,
    pub top1: f64,
    pub top5: f64,
    pub top10: f64,
    /// Largest x with error <= 10% / 5%, paper form (all 81 points ranked).
    pub x_at_10_all: usize,
    pub x_at_5_all: usize,
    /// The same, ranking legal moves only.
    pub x_at_10_legal: usize,
    pub x_at_5_legal: usize,
    pub error_all_at_30: f64,
    pub error_all_at_32: f64,
    pub error_legal_at_30: f64,
    pub seconds: f64,
    /// Evaluated games among the model's training games: a count, `unknown` when the model
    /// or the dataset records no game hashes, empty for baselines and SGF inputs.
    pub training_overlap: String,
}

impl SummaryRow {
    pub fn new(model: String, c: &Curve, seconds: f64) -> SummaryRow {
        SummaryRow {
            model,
            positions: c.n,
            passes_skipped: c.passes,
            top1: c.top_k(1),
            top5: c.top_k(5),
            top10: c.top_k(10),
            x_at_10_all: c.largest_x_within(0.10, false),
            x_at_5_all: c.largest_x_within(0.05, false),
            x_at_10_legal: c.largest_x_within(0.10, true),
            x_at_5_legal: c.largest_x_within(0.05, true),
            error_all_at_30: c.error_all(30),
            error_all_at_32: c.error_all(32),
            error_legal_at_30: c.error_legal(30),
            seconds,
            training_overlap: String::new(),
        }
    }
}

/// One row of the breakdown CSV: a model's figures over one group of positions.
#[derive(Debug, Serialize)]
struct BreakdownRow {
    model: String,
    by: &'static str,
    group: &'static str,
    positions: u64,
    passes_skipped: u64,
    top1: f64,
    top5: f64,
    top10: f64,
    error_all_at_30: f64,
    x_at_10_all: usize,
    x_at_10_legal: usize,
}

/// One row of the per-position CSV (the columns are documented on `--positions-csv`).
#[derive(Debug, Serialize)]
struct PositionRow<'a> {
    model: &'a str,
    game: u32,
    game_hash: String,
    #[serde(rename = "move")]
    move_number: u32,
    to_move: char,
    rank: String,
    played: String,
    rank_all: u8,
    rank_legal: u8,
    rank_best: u8,
    legal_moves: u8,
    pruned_at_30: bool,
    top1: String,
}

/// The paper's x for the per-position `pruned_at_30` column.
const PAPER_X: usize = 30;

/// A model's `--by` groups: one row per non-empty group of each breakdown, in table order.
fn breakdown(
    model: &str,
    by: &[BreakdownBy],
    positions: &[Position],
    ranks: &[Option<MoveRanks>],
) -> Vec<BreakdownRow> {
    let mut rows = Vec::new();
    for &b in by {
        let labels = b.groups();
        let mut curves = vec![Curve::default(); labels.len()];
        for (pos, r) in positions.iter().zip(ranks) {
            curves[b.group(pos)].add_ranks(r.as_ref());
        }
        for (group, c) in labels.into_iter().zip(&curves) {
            if c.n + c.passes == 0 {
                continue;
            }
            rows.push(BreakdownRow {
                model: model.to_string(),
                by: b.name(),
                group,
                positions: c.n,
                passes_skipped: c.passes,
                top1: c.top_k(1),
                top5: c.top_k(5),
                top10: c.top_k(10),
                error_all_at_30: c.error_all(PAPER_X),
                x_at_10_all: c.largest_x_within(0.10, false),
                x_at_10_legal: c.largest_x_within(0.10, true),
            });
        }
    }
    rows
}

/// Prints a model's breakdown rows as a table under its summary line.
fn print_breakdown(rows: &[BreakdownRow]) {
    crate::outln!(
        "  {:<6} {:<8} {:>8} {:>6} {:>6} {:>6} {:>7} {:>10} {:>12}",
        "by",
        "group",
        "n",
        "top1",
        "top5",
        "top10",
        "err@30",
        "x<=10% all",
        "x<=10% legal"
    );
    for r in rows {
        crate::outln!(
            "  {:<6} {:<8} {:>8} {:>6.3} {:>6.3} {:>6.3} {:>7.3} {:>10} {:>12}",
            r.by,
            r.group,
            r.positions,
            r.top1,
            r.top5,
            r.top10,
            r.error_all_at_30,
            r.x_at_10_all,
            r.x_at_10_legal
        );
    }
}

/// A GTP vertex (or `pass`) from a flat index.
fn vertex(index: u8) -> String {
    crate::rules::Move::from_index(index as usize).map_or_else(|_| "pass".into(), |m| m.to_gtp())
}

/// Writes `--positions-csv`: every model's ranked positions, model by model.
fn write_positions(
    path: &Path,
    args: &EvalArgs,
    labels: &[String],
    positions: &[Position],
    ranked: &[Vec<Option<MoveRanks>>],
) -> anyhow::Result<()> {
    // Game hashes come from the dataset's game table; SGF and synthetic inputs have none.
    let by_game = match &args.data {
        Some(dir) if args.sgf.is_empty() => crate::dataset::gameset::DatasetGames::read(dir)?
            .map(|g| g.by_game)
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    write_file(path, POSITIONS_CSV, args.force, &args.inputs(), |w| {
        let mut csv = csv::Writer::from_writer(w);
        for (label, ranks) in labels.iter().zip(ranked) {
            for (pos, r) in positions.iter().zip(ranks) {
                let Some(r) = r else { continue };
                let rank = mover_rank(pos);
                csv.serialize(PositionRow {
                    model: label,
                    game: pos.game,
                    game_hash: by_game
                        .get(pos.game as usize)
                        .map_or_else(String::new, |h| format!("{h:016x}")),
                    move_number: move_of(pos),
                    to_move: pos.color().letter(),
                    rank: crate::sgf::rank_text(rank),
                    played: vertex(pos.played),
                    rank_all: r.all,
                    rank_legal: r.legal,
                    rank_best: r.best,
                    legal_moves: r.legal_count,
                    pruned_at_30: (r.all as usize) < PAPER_X,
                    top1: vertex(r.top1),
                })
                .map_err(std::io::Error::other)?;
            }
        }
        csv.flush()
    })
}

/// The paper's Fig. 2 reference points (paper A in `docs/papers.md`): about 10% error at 30 pruned, under 10%
/// up to 32.
pub const PAPER_POINTS: [(f64, f64); 2] = [(30.0, 0.10), (32.0, 0.10)];

/// What `eval --model` names: any pruner an engine spec names ([`PrunerName`], with a bare
/// model directory for a network), or one of the curve's own baselines. Parsed when the
/// command line is, so a bad name is refused before anything is read.
#[derive(Clone, PartialEq)]
pub enum EvalModel {
    /// `rules`: the curve's rule baseline ([`RuleBaseline`], ties broken at random), not the
    /// search's `rule` pruner (ties in flat-index order).
    Rules,
    /// `oracle`: rates the recorded move best, the curve's ceiling.
    Oracle,
    /// `teacher`: a labelled dataset's teacher policy ([`crate::net::truth::TeacherPolicy`]).
    Teacher,
    /// A pruner by name; `random[:SEED]` is the curve's random baseline
    /// ([`RandomBaseline`], seeded by `--seed` when the name gives no seed).
    Pruner(PrunerName),
}

impl std::str::FromStr for EvalModel {
    type Err = crate::prune::name::PrunerNameError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text {
            "rules" => EvalModel::Rules,
            "oracle" => EvalModel::Oracle,
            "teacher" => EvalModel::Teacher,
            _ => EvalModel::Pruner(PrunerName::parse_or_dir(text)?),
        })
    }
}

impl std::fmt::Display for EvalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalModel::Rules => f.write_str("rules"),
            EvalModel::Oracle => f.write_str("oracle"),
            EvalModel::Teacher => f.write_str("teacher"),
            EvalModel::Pruner(name) => name.fmt(f),
        }
    }
}

/// As the name was given, so the run's first line (`# akushu eval EvalArgs { .. }`) prints
/// the names as the command line spelled them.
impl std::fmt::Debug for EvalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.to_string())
    }
}

impl EvalModel {
    /// The network's model directory; `None` for baselines and pruners without weights.
    pub fn model_dir(&self) -> Option<&Path> {
        match self {
            EvalModel::Pruner(name) => name.model_dir(),
            _ => None,
        }
    }
}

/// The scorer `model` names. Networks load from their directory as named (a path that
/// does not exist is an error here, not looked for beside the program as engines do);
/// every other pruner is built by the search's registry, so a pruner kind added there gets
/// a curve here too.
pub fn scorer_for(model: &EvalModel, seed: u64) -> anyhow::Result<Box<dyn PositionScorer>> {
    /// A shared pruner as a scorer.
    struct Shared(Arc<dyn crate::prune::Pruner>);
    impl PositionScorer for Shared {
        fn name(&self) -> String {
            self.0.name()
        }
        fn score(&self, pos: &Position, board: &crate::rules::Board, out: &mut [f32; NN]) {
            PrunerScorer(&*self.0).score(pos, board, out)
        }
    }
    let pruner: Arc<dyn crate::prune::Pruner> = match model {
        EvalModel::Oracle => return Ok(Box::new(OracleBaseline)),
        EvalModel::Teacher => return Ok(Box::new(crate::net::truth::TeacherPolicy)),
        EvalModel::Pruner(PrunerName::Network(net)) => {
            return Ok(Box::new(NetPruner::load_network(net)?));
        }
        EvalModel::Rules => Arc::new(RuleBaseline { seed }),
        EvalModel::Pruner(PrunerName::Random(own)) => Arc::new(RandomBaseline {
            seed: own.unwrap_or(seed),
        }),
        EvalModel::Pruner(name) => make_pruner(name)?,
    };
    Ok(Box::new(Shared(pruner)))
}

/// [`model_labels`] of the models' names as given.
fn labels_of(models: &[EvalModel]) -> Vec<String> {
    model_labels(&models.iter().map(ToString::to_string).collect::<Vec<_>>())
}

/// The last `depth` components of `name` joined by `/` (the whole name if it has fewer).
fn path_suffix(name: &str, depth: usize) -> String {
    let parts: Vec<String> = Path::new(name)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        return name.to_string();
    }
    parts[parts.len().saturating_sub(depth)..].join("/")
}

/// One label per model for the table, the plot and the per-model CSV names: the directory's
/// base name, with as many parent folders as it takes to tell models with the same base name
/// apart (`a/cnn` and `b/cnn`), and `#k` for a model given twice.
fn model_labels(names: &[String]) -> Vec<String> {
    let mut depth = vec![1usize; names.len()];
    let mut labels: Vec<String> = names.iter().map(|n| path_suffix(n, 1)).collect();
    // Each pass lengthens the labels that still clash; paths are finitely deep.
    for _ in 0..64 {
        let clashing: Vec<usize> = (0..names.len())
            .filter(|&i| (0..names.len()).any(|j| j != i && labels[j] == labels[i]))
            .filter(|&i| path_suffix(&names[i], depth[i] + 1) != labels[i])
            .collect();
        if clashing.is_empty() {
            break;
        }
        for i in clashing {
            depth[i] += 1;
            labels[i] = path_suffix(&names[i], depth[i]);
        }
    }
    // The same path given more than once.
    for i in 0..labels.len() {
        let earlier = labels[..i].iter().filter(|l| **l == labels[i]).count();
        if earlier > 0 {
            labels[i] = format!("{}#{}", labels[i], earlier + 1);
        }
    }
    labels
}

/// The curve CSV of the `index`-th model: `base` itself for the first, `STEM-LABEL.EXT`
/// beside it for the others (a label's `/`, `\` and `:` become `_`: `nnq:models/x` must not
/// put a colon into a file name, which Windows and many tools refuse).
fn csv_path_for(base: &Path, index: usize, label: &str) -> PathBuf {
    if index == 0 {
        return base.to_path_buf();
    }
    let stem = base.file_stem().unwrap_or_default().to_string_lossy();
    let ext = base
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    base.with_file_name(format!(
        "{stem}-{}{ext}",
        label.replace(['/', '\\', ':'], "_")
    ))
}

fn write_curve(path: &Path, c: &Curve, args: &EvalArgs) -> anyhow::Result<()> {
    write_file(path, CURVE_CSV, args.force, &args.inputs(), |w| {
        let mut csv = csv::Writer::from_writer(w);
        for x in 0..NN {
            let row = CurveRow {
                pruned: x,
                error_all: c.error_all(x),
                error_legal: c.error_legal(x),
            };
            csv.serialize(row).map_err(std::io::Error::other)?;
        }
        csv.flush()
    })
}

/// How many skipped records [`skipped_text`] names before it only counts the rest.
const SKIPS_NAMED: usize = 5;

/// The records `eval --sgf` left out, one `#` line each with the reason: all of them when
/// few, else the first [`SKIPS_NAMED`] and the count of the others.
fn skipped_text(skipped: &[SgfSkip]) -> String {
    let mut s = String::new();
    for k in skipped.iter().take(SKIPS_NAMED) {
        s += &format!("#   skipped {}: {}\n", k.source, k.why);
    }
    let more = skipped.len().saturating_sub(SKIPS_NAMED);
    if more > 0 {
        s += &format!(
            "#   ... and {} more record{} skipped\n",
            HumanCount(more as u64),
            if more == 1 { "" } else { "s" }
        );
    }
    s
}

/// The positions a curve leaves out, said where its count is printed: a pass is no point on
/// the board, so the curve cannot rank it.
fn passes_text(passes: u64) -> String {
    match passes {
        0 => String::new(),
        1 => " (1 pass move not rated)".to_string(),
        n => format!(" ({} pass moves not rated)", HumanCount(n)),
    }
}

/// Loads the positions the arguments name.
fn positions(args: &EvalArgs) -> anyhow::Result<Vec<Position>> {
    if !args.sgf.is_empty() {
        for p in &args.sgf {
            if std::fs::symlink_metadata(p).is_err() {
                anyhow::bail!("{}", crate::util::fsio::missing_input("--sgf", p));
            }
        }
        let (all, skipped) = sgf_positions(&args.sgf);
        crate::outln!(
            "# SGF: {} positions, {} record{} skipped",
            HumanCount(all.len() as u64),
            HumanCount(skipped.len() as u64),
            if skipped.len() == 1 { "" } else { "s" }
        );
        crate::out!("{}", skipped_text(&skipped));
        return Ok(sample(all, args.max_positions, args.seed));
    }
    let all = match (&args.data, args.synthetic_games) {
        (Some(dir), _) => read_choice(dir, args.split)?,
        (None, Some(games)) => args
            .split
            .splits()
            .into_iter()
            .flat_map(|s| synthetic_split(games, args.seed, s))
            .collect(),
        (None, None) => anyhow::bail!("give --data DIR or --synthetic-games N"),
    };
    Ok(sample(all, args.max_positions, args.seed))
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    crate::outln!("# akushu eval {args:?}");
    args.check_outputs()?;
    args.check_devices()?;
    if !args.redraw.is_empty() {
        let curves = args
            .redraw
            .iter()
            .map(|spec| read_curve_csv(spec))
            .collect::<anyhow::Result<Vec<_>>>()?;
        return write_png(&args, &curves, "from curve CSVs");
    }
    let (overlaps, excluded) = training_overlaps(&args)?;
    let mut positions = positions(&args)?;
    if let Some((seen, by_game)) = &excluded {
        positions.retain(|p| {
            by_game
                .get(p.game as usize)
                .is_none_or(|&h| !seen.contains(h))
        });
    }
    let passes = positions.iter().filter(|p| p.played as usize >= NN).count() as u64;
    crate::outln!(
        "# {} positions{}",
        HumanCount(positions.len() as u64),
        passes_text(passes)
    );
    if positions.is_empty() {
        anyhow::bail!(
            "no positions to evaluate: a curve over nothing would look perfect (check --data, \
             --sgf and --split)"
        );
    }
    if let Some(truth) = args.truth {
        return super::eval_truth::run(
            &args,
            truth,
            &positions,
            &labels_of(&args.model),
            &args.inputs(),
        );
    }
    if args.model.contains(&EvalModel::Teacher)
        && let Some(i) = positions.iter().position(|p| p.teacher.is_none())
    {
        anyhow::bail!(
            "--model teacher: position {i} has no teacher's label (label the data with              `akushu dataset label`)"
        );
    }
    let mut rows = Vec::new();
    let mut curves = Vec::new();
    let mut breakdown_rows = Vec::new();
    let mut ranked = Vec::new();
    let device = args.device.device()?;
    let labels = labels_of(&args.model);
    for (i, name) in args.model.iter().enumerate() {
        let bar = indicatif::ProgressBar::new(positions.len() as u64);
        bar.set_message(labels[i].clone());
        let start = Instant::now();
        let on_device = args.device.is_gpu().then(|| name.model_dir()).flatten();
        let curve = if let Some(dir) = on_device {
            let (model, _) = crate::net::SavedModel::load_on(dir, &device)
                .with_context(|| format!("loading {name} onto {}", args.device))?;
            crate::net::train::network_curve(&model, &positions, &device, &|n| bar.inc(n))
        } else {
            let scorer = scorer_for(name, args.seed)?;
            let ranks = rank_each(scorer.as_ref(), &positions, &|n| bar.inc(n));
            let curve = Curve::from_ranks(ranks.iter().map(Option::as_ref));
            if !args.by.is_empty() {
                breakdown_rows.push(breakdown(&labels[i], &args.by, &positions, &ranks));
            }
            if args.positions_csv.is_some() {
                ranked.push(ranks);
            }
            curve
        };
        bar.finish_and_clear();
        let mut row = SummaryRow::new(labels[i].clone(), &curve, start.elapsed().as_secs_f64());
        row.training_overlap = overlaps[i].clone();
        crate::outln!(
            "{:<16} n={}{}{} top1/5/10 {:.3}/{:.3}/{:.3}  all: err@30 {:.3} err@32 {:.3}, x<=10% {}, x<=5% {}  legal: err@30 {:.3}, x<=10% {}, x<=5% {}",
            row.model,
            HumanCount(row.positions),
            passes_text(row.passes_skipped),
            match row.training_overlap.as_str() {
                "" | "0" => String::new(),
                o => format!(" (training-game overlap: {o})"),
            },
            row.top1,
            row.top5,
            row.top10,
            row.error_all_at_30,
            row.error_all_at_32,
            row.x_at_10_all,
            row.x_at_5_all,
            row.error_legal_at_30,
            row.x_at_10_legal,
            row.x_at_5_legal
        );
        if args.value
            && let Some(dir) = name.model_dir()
        {
            print_value(&labels[i], dir, &positions)?;
        }
        if let Some(groups) = breakdown_rows.last().filter(|_| !args.by.is_empty()) {
            print_breakdown(groups);
        }
        if let Some(base) = &args.csv {
            write_curve(&csv_path_for(base, i, &labels[i]), &curve, &args)?;
        }
        rows.push(row);
        curves.push((labels[i].clone(), curve));
    }
    if let Some(path) = &args.summary {
        write_file(path, SUMMARY_CSV, args.force, &args.inputs(), |w| {
            let mut csv = csv::Writer::from_writer(w);
            for r in &rows {
                csv.serialize(r).map_err(std::io::Error::other)?;
            }
            csv.flush()
        })?;
    }
    if let Some(path) = &args.breakdown_csv {
        write_file(path, BREAKDOWN_CSV, args.force, &args.inputs(), |w| {
            let mut csv = csv::Writer::from_writer(w);
            for r in breakdown_rows.iter().flatten() {
                csv.serialize(r).map_err(std::io::Error::other)?;
            }
            csv.flush()
        })?;
    }
    if let Some(path) = &args.positions_csv {
        write_positions(path, &args, &labels, &positions, &ranked)?;
    }
    let drawn: Vec<PlotCurve> = curves
        .iter()
        .map(|(name, c)| PlotCurve {
            label: name.clone(),
            all: (0..NN).map(|x| c.error_all(x)).collect(),
            legal: (0..NN).map(|x| c.error_legal(x)).collect(),
        })
        .collect();
    write_png(&args, &drawn, &evaluated_what(&args, positions.len()))
}

/// `--value`: the value head's log-loss and winners called on `positions`.
fn print_value(label: &str, dir: &Path, positions: &[Position]) -> anyhow::Result<()> {
    let device = crate::net::cpu_device();
    let (model, _) = crate::net::SavedModel::load_on(dir, &device)
        .with_context(|| format!("loading {}", dir.display()))?;
    match crate::net::train::network_value(&model, positions, &device) {
        None => crate::outln!("{label:<16} value: no value head"),
        Some(v) => crate::outln!(
            "{label:<16} value: log-loss {} and winner called on {} of {} positions with a known result",
            v.loss().map_or("-".into(), |l| format!("{l:.4}")),
            v.accuracy().map_or("-".into(), |a| format!("{a:.3}")),
            v.known
        ),
    }
    Ok(())
}

/// What an evaluation ran on, for the chart's title: the data and the position count.
fn evaluated_what(args: &EvalArgs, n: usize) -> String {
    let source = if !args.sgf.is_empty() {
        args.sgf
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    } else if let Some(dir) = &args.data {
        let split = format!("{:?}", args.split).to_lowercase();
        format!("{}, {split} split", dir.display())
    } else {
        "synthetic games".to_string()
    };
    format!("{source}, n = {}", HumanCount(n as u64))
}

/// Games left out by `--exclude-seen`: the listed models' training games, and every
/// game's hash by game number.
type Excluded = Option<(crate::dataset::gameset::GameSet, Vec<u64>)>;

/// Per model, how many evaluated games are among its training games (see
/// [`SummaryRow::training_overlap`]), after refusing a non-zero overlap without
/// `--allow-overlap`; with `--exclude-seen`, the games to leave out instead. Checked before
/// anything is evaluated.
fn training_overlaps(args: &EvalArgs) -> anyhow::Result<(Vec<String>, Excluded)> {
    use crate::dataset::gameset::{DatasetGames, GameSet};
    use crate::net::provenance::ModelGames;
    let mut by_game = Vec::new();
    let evaluated = match &args.data {
        Some(dir) if args.sgf.is_empty() => match DatasetGames::read(dir)? {
            Some(games) => {
                let evaluated = games.of(&args.split.splits());
                by_game = games.by_game;
                Some(evaluated)
            }
            None => {
                crate::outln!(
                    "# {} lists no game hashes (built by an older akushu): overlap with \
                     training games is not checked; rebuild it to check",
                    dir.display()
                );
                None
            }
        },
        // SGF games are known by their content, as datasets know them.
        _ if !args.sgf.is_empty() => {
            let (_, _, hashes) = crate::net::data::sgf_games(&args.sgf);
            by_game = hashes.clone();
            Some(hashes)
        }
        _ => None,
    };
    if args.exclude_seen && evaluated.is_none() {
        anyhow::bail!(
            "--exclude-seen needs a dataset that lists its games' hashes (--data DIR built \
             by this akushu)"
        );
    }
    let labels = labels_of(&args.model);
    let mut out = Vec::new();
    let mut seen = GameSet::default();
    for (name, label) in args.model.iter().zip(&labels) {
        // Only a network has training games.
        let Some(dir) = name.model_dir() else {
            out.push(String::new());
            continue;
        };
        let Some(evaluated) = evaluated.as_ref() else {
            out.push(if args.data.is_none() && args.sgf.is_empty() {
                String::new()
            } else {
                "unknown".into()
            });
            continue;
        };
        let model = ModelGames::load(dir).with_context(|| format!("--model {name}"))?;
        // Training data it could not list: its recorded games are checked all the same, and
        // the overlap it prints says the rest is unknown.
        let partly = |n: usize| match &model.unknown {
            Some(why) => {
                crate::outln!(
                    "# {label}: other training data unknown ({why}): overlap checked on its \
                     recorded games only"
                );
                "unknown".to_string()
            }
            None => n.to_string(),
        };
        match model.games {
            Err(why) => {
                crate::outln!("# {label}: training games unknown ({why}): overlap not checked");
                out.push("unknown".into());
            }
            Ok(set) if args.exclude_seen => {
                let n = set.overlap(evaluated);
                crate::outln!(
                    "# {label}: {n} of the {} evaluated games are among its {} training games: \
                     left out",
                    evaluated.len(),
                    set.len()
                );
                seen = seen.union(&set);
                out.push(partly(0));
            }
            Ok(set) => {
                let n = set.overlap(evaluated);
                if n > 0 && !args.allow_overlap {
                    anyhow::bail!(
                        "{label} was trained on {n} of the {} evaluated games: its figures \
                         here would be inflated. Pass --exclude-seen to evaluate only the \
                         games it never saw, evaluate on a dataset split by content (the \
                         default), or pass --allow-overlap to print them with the overlap",
                        evaluated.len()
                    );
                }
                crate::outln!(
                    "# {label}: {n} of the {} evaluated games are among its {} training games",
                    evaluated.len(),
                    set.len()
                );
                out.push(partly(n));
            }
        }
    }
    if !args.exclude_seen {
        return Ok((out, None));
    }
    let left_out = evaluated.as_ref().map_or(0, |e| seen.overlap(e));
    crate::outln!(
        "# --exclude-seen: {left_out} of the {} evaluated games left out, {} evaluated",
        evaluated.as_ref().map_or(0, Vec::len),
        evaluated.as_ref().map_or(0, Vec::len) - left_out
    );
    Ok((out, Some((seen, by_game))))
}

/// One model's two error curves (x = 0..80), as drawn.
#[derive(Debug)]
struct PlotCurve {
    label: String,
    all: Vec<f64>,
    legal: Vec<f64>,
}

/// Reads `LABEL=FILE`, a curve CSV (`pruned,error_all,error_legal`, x = 0..80, in order).
fn read_curve_csv(spec: &str) -> anyhow::Result<PlotCurve> {
    let (label, file) = spec
        .split_once('=')
        .with_context(|| format!("--redraw `{spec}`: expected LABEL=FILE"))?;
    let columns = ["error_all".to_string(), "error_legal".to_string()];
    let data = crate::arena::experiment::read_curve(Path::new(file), "pruned", &columns)
        .with_context(|| format!("--redraw `{spec}`"))?;
    if let Some(k) = (0..data.x.len()).find(|&k| data.x[k] != k as f64) {
        anyhow::bail!(
            "{file}: data row {} has pruned = {}, expected {k}",
            k + 1,
            data.x[k]
        );
    }
    anyhow::ensure!(
        data.x.len() == NN,
        "{file}: {} rows, expected {NN} (x = 0..80)",
        data.x.len()
    );
    let [(_, all), (_, legal)]: [(String, Vec<f64>); 2] = data
        .series
        .try_into()
        .expect("one series per requested column");
    Ok(PlotCurve {
        label: label.to_string(),
        all,
        legal,
    })
}

/// Writes `--png` (when asked) with the curves; `what` (the data and n) goes into the
/// default title.
fn write_png(args: &EvalArgs, curves: &[PlotCurve], what: &str) -> anyhow::Result<()> {
    if let Some(path) = &args.png {
        // Drawn to a private temporary file first, then written by the output rule (which
        // may stream it into a pipe). The extension picks the format.
        let ext = if crate::report::plot::is_svg(path) {
            "svg"
        } else {
            "png"
        };
        let tmp = std::env::temp_dir().join(format!("akushu-eval-{}.{ext}", std::process::id()));
        let title = args
            .title
            .clone()
            .unwrap_or_else(|| format!("Pruning error rate ({what})"));
        let view = CurveView {
            x: args.x_range.unwrap_or((0, 80)),
            y_max: args.y_max.unwrap_or(1.0),
        };
        let drawn = plot_curves(&tmp, curves, &title, args.chart_size, view)
            .and_then(|_| Ok(std::fs::read(&tmp)?));
        let _ = std::fs::remove_file(&tmp);
        let bytes = drawn?;
        write_file(path, chart_kind(path), args.force, &args.inputs(), |w| {
            w.write_all(&bytes)
        })?;
        crate::outln!("wrote {} ({} curves)", path.display(), curves.len());
    }
    Ok(())
}

/// clap parser for `--x-range`: `FROM..TO` with FROM < TO <= 80.
fn x_range_arg(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("x range `{text}`: expected FROM..TO with 0 <= FROM < TO <= 80");
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let (a, b) = (
        a.trim().parse::<u32>().map_err(|_| bad())?,
        b.trim().parse::<u32>().map_err(|_| bad())?,
    );
    if a < b && b <= 80 {
        Ok((a, b))
    } else {
        Err(bad())
    }
}

/// clap parser for `--y-max`: an error rate above 0, at most 1.
fn y_max_arg(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| *v > 0.0 && *v <= 1.0)
        .ok_or_else(|| format!("y max `{text}`: expected an error rate above 0, at most 1"))
}

/// The part of the curves a chart shows: x from..to (points pruned) and the top error rate.
#[derive(Debug, Clone, Copy)]
struct CurveView {
    x: (u32, u32),
    y_max: f64,
}

impl CurveView {
    /// A curve's points inside the view. Error curves never fall as x grows, so a curve
    /// leaves through the top once: it ends at the point where it crosses `y_max`
    /// (interpolated), and nothing is drawn outside the plotting area.
    fn clip(&self, curve: &[f64]) -> Vec<(f64, f64)> {
        let (from, to) = (self.x.0 as usize, self.x.1 as usize);
        let mut out: Vec<(f64, f64)> = Vec::new();
        for (x, &e) in curve.iter().enumerate().take(to + 1).skip(from) {
            if e <= self.y_max {
                out.push((x as f64, e));
                continue;
            }
            if let Some(&(px, pe)) = out.last() {
                let t = (self.y_max - pe) / (e - pe);
                out.push((px + t * (x as f64 - px), self.y_max));
            }
            break;
        }
        out
    }
}

/// Draws every model's curves, both forms in the model's colour (all 81 points solid, legal
/// moves only dashed), and the paper's reference points in black, inside `view`.
fn plot_curves(
    path: &Path,
    curves: &[PlotCurve],
    title: &str,
    size: (u32, u32),
    view: CurveView,
) -> anyhow::Result<()> {
    use crate::report::plot::{Chart, PAPER_COLOUR, Series, SeriesStyle, palette, render_chart};
    let xs = |v: &[f64]| view.clip(v);
    let mut chart = Chart::new(
        title,
        "points rated worst and pruned (x of the 81; error = recorded move among them)",
        "error rate",
    )
    .x_range(f64::from(view.x.0), f64::from(view.x.1))
    .y_range(0.0, view.y_max)
    .size(size.0, size.1)
    .hline(0.10, "10% error");
    // A series the view leaves empty (a legal-moves curve above a zoom's top, the paper's
    // points outside its x range) is left out of the legend as well.
    let mut series = Vec::new();
    for (k, c) in curves.iter().enumerate() {
        for (form, style, curve) in [
            ("all 81 points", SeriesStyle::Line, &c.all),
            ("legal moves only", SeriesStyle::Dashed, &c.legal),
        ] {
            series.push(
                Series::new(format!("{}: {form}", c.label), style, xs(curve)).colour(palette(k)),
            );
        }
    }
    series.push(
        Series::new(
            "paper (KGS, Fig. 2, all 81 points)",
            SeriesStyle::Points,
            PAPER_POINTS
                .iter()
                .copied()
                .filter(|&(x, e)| {
                    (f64::from(view.x.0)..=f64::from(view.x.1)).contains(&x) && e <= view.y_max
                })
                .collect(),
        )
        .colour(PAPER_COLOUR),
    );
    for s in series.into_iter().filter(|s| !s.points.is_empty()) {
        chart = chart.series(s);
    }
    render_chart(&chart, path).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zoomed_view_keeps_its_points_and_cuts_a_curve_where_it_leaves_the_top() {
        let view = CurveView {
            x: (2, 5),
            y_max: 0.5,
        };
        let curve = [0.0, 0.1, 0.2, 0.3, 0.4, 0.7, 0.9];
        // x 2..=4 inside; from 0.4 at x = 4 to 0.7 at x = 5 it crosses 0.5 a third of the way.
        let got = view.clip(&curve);
        assert_eq!(got.len(), 4);
        assert_eq!(&got[..3], &[(2.0, 0.2), (3.0, 0.3), (4.0, 0.4)]);
        assert!((got[3].0 - (4.0 + 1.0 / 3.0)).abs() < 1e-9 && got[3].1 == 0.5);
        // A curve above the top from the first x shows nothing.
        assert!(view.clip(&[0.9; 81]).is_empty());
        assert_eq!(x_range_arg("55..80"), Ok((55, 80)));
        for bad in ["80..55", "0..81", "5", "a..b", "7..7"] {
            assert!(x_range_arg(bad).is_err(), "{bad}");
        }
        assert_eq!(y_max_arg("0.2"), Ok(0.2));
        assert!(y_max_arg("0").is_err() && y_max_arg("1.5").is_err() && y_max_arg("nan").is_err());
    }

    #[test]
    fn redraw_reads_a_curve_csv_and_refuses_a_short_or_shuffled_one() {
        let dir = std::env::temp_dir().join(format!("akushu-redraw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.csv");
        let mut text = String::from("pruned,error_all,error_legal\n");
        for x in 0..NN {
            text += &format!("{x},{},{}\n", x as f64 / 100.0, x as f64 / 80.0);
        }
        std::fs::write(&good, &text).unwrap();
        let c = read_curve_csv(&format!("cnn={}", good.display())).unwrap();
        assert_eq!(c.label, "cnn");
        assert_eq!((c.all.len(), c.legal.len()), (NN, NN));
        assert_eq!((c.all[30], c.legal[80]), (0.3, 1.0));
        let short = dir.join("short.csv");
        std::fs::write(&short, "pruned,error_all,error_legal\n0,0,0\n").unwrap();
        let e = read_curve_csv(&format!("x={}", short.display())).unwrap_err();
        assert!(format!("{e:#}").contains("expected 81"), "{e:#}");
        let shuffled = dir.join("shuffled.csv");
        std::fs::write(&shuffled, text.replacen("0,0,0\n", "", 1)).unwrap();
        let e = read_curve_csv(&format!("x={}", shuffled.display())).unwrap_err();
        assert!(format!("{e:#}").contains("expected 0"), "{e:#}");
        assert!(read_curve_csv("no-label.csv").is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn models_with_one_base_name_get_distinct_labels() {
        let names: Vec<String> = ["runs/a/cnn", "models/cnn", "random", "models/cnn", "mlp"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            model_labels(&names),
            ["a/cnn", "models/cnn", "random", "models/cnn#2", "mlp"]
        );
        let p = csv_path_for(Path::new("out/curve.csv"), 1, "a/cnn");
        assert_eq!(p, Path::new("out/curve-a_cnn.csv"));
        let p = csv_path_for(Path::new("out/curve.csv"), 1, "nnq:models/cnn");
        assert_eq!(p, Path::new("out/curve-nnq_models_cnn.csv"));
    }
}
