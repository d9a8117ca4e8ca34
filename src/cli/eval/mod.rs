//! `akushu eval`: the pruning error-rate curve of a model (and baselines) on a dataset split:
//! both forms (all 81 points, legal moves only), top-1/5/10, the largest x under 10% and 5%
//! error, a CSV per model and a PNG with the paper's reference points; breakdowns of the same
//! figures by game phase and by the mover's rank (`--by`), and one row per position
//! (`--positions-csv`) to see where a pruner errs.
//!
//! Files: this one the flags and the run; `models.rs` what `--model` names and its scorer;
//! `breakdown.rs` `--by` and `--positions-csv`; `overlap.rs` the training-games check;
//! `plot.rs` the chart; `truth.rs` the engine-judged curve (`--truth`); `tests.rs` the
//! tests.

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
use crate::net::curve::{Curve, MoveRanks, rank_each};
use crate::net::data::{SgfSkip, SplitChoice, read_choice, sgf_positions, synthetic_split};
use crate::net::scorer::{PositionScorer, PrunerScorer};
use crate::net::train::sample;
use crate::prune::name::PrunerName;
use crate::rules::NN;
use crate::search::pruners::make_pruner;

use crate::util::output::{FileKind, file_target, write_file};

mod breakdown;
mod models;
mod overlap;
mod plot;
mod truth;
pub use breakdown::*;
pub use models::*;
use overlap::*;
use plot::*;

#[derive(Debug, Clone, Args)]
pub struct EvalArgs {
    /// A model directory (e.g. `models/default`, or `nn:DIR`), `nnq:DIR` for a CNN evaluated
    /// with 8-bit integer convolutions, `sym8:DIR` / `sym8:nnq:DIR` for a CNN whose
    /// probabilities are averaged over the 8 board symmetries (8 times the cost; `sym4:` and
    /// `sym2:` over the first 4 or 2), any other pruner an engine spec names (`rule`,
    /// `kakeme`, `none`), `random` / `random:SEED` / `rules` for the baselines, or `oracle`
    /// (rates the recorded move best: the best curve any ranking can draw).
    /// Repeat to compare several on one plot; the first is the main one.
    #[arg(long, required_unless_present_any = ["redraw", "truth_redraw"])]
    pub model: Vec<EvalModel>,
    /// Dataset directory written by `akushu dataset build`.
    #[arg(long, required_unless_present_any = ["synthetic_games", "sgf", "redraw", "truth_redraw"])]
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
    /// Redraw `--png` from a CSV an earlier `--truth-csv` wrote, evaluating nothing (the
    /// labels it came from need not be here): every model in it, the title from its truth
    /// and position count.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["model", "data", "sgf", "synthetic_games", "truth", "redraw", "csv", "summary", "by", "positions_csv"], requires = "png")]
    pub truth_redraw: Option<PathBuf>,
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
        v.extend(self.truth_redraw.iter().cloned());
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
        truth::check_output(self, &inputs)?;
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
            // A packed games folder's `sgf/` is read from its archive (`util::pack`).
            if std::fs::symlink_metadata(p).is_err()
                && crate::util::pack::packed_location(p).is_none()
            {
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
    crate::outln!("# {}", crate::cli::command_line());
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
    if let Some(file) = &args.truth_redraw {
        return truth::redraw(&args, file);
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
        return truth::run(
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
    match crate::net::heads::network_value(&model, positions, &device) {
        None => crate::outln!("{label:<16} value: no value head"),
        Some(v) => crate::outln!(
            "{label:<16} value: log-loss {} and winner called on {} of {} positions with a known result",
            v.loss().map_or("-".into(), |l| format!("{l:.4}")),
            v.accuracy().map_or("-".into(), |a| format!("{a:.3}")),
            v.known
        ),
    }
    // Positions a teacher labelled also say how far the network's score lead is from the
    // teacher's: the score head's, and the one its ownership implies (area less komi).
    if let Some(s) =
        crate::net::heads::network_score(&model, positions, &device).filter(|s| s.labelled > 0)
    {
        let points = |e: Option<f64>| e.map_or("-".into(), |e| format!("{e:.2}"));
        crate::outln!(
            "{label:<16} score lead: mean absolute error against the teacher's on {} labelled \
             positions: score head {}, ownership head {} (always 0: {}) points",
            s.labelled,
            points(s.head_error()),
            points(s.ownership_error()),
            points(s.zero_error())
        );
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

#[cfg(test)]
mod tests;
