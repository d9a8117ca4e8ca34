//! `eval --truth teacher[:LOSS]`: every model's engine-judged curve on a dataset labelled
//! per move (`dataset label --per-move`), printed, as CSV (`--truth-csv`) and as a chart
//! (`--png`); see [`crate::net::truth`].

use anyhow::bail;
use serde::Serialize;

use super::eval::{EvalArgs, scorer_for};
use crate::dataset::Position;
use crate::net::truth::{Truth, TruthCurve, truth_curve};
use crate::rules::NN;
use crate::util::output::{FileKind, file_target, write_file};

/// The truth CSV: one row per model and x.
pub const TRUTH_CSV: FileKind = FileKind {
    name: "engine-judged curve CSV",
    signature: b"model,truth,x,",
    mark: None,
};

#[derive(Debug, Serialize)]
struct TruthRow<'a> {
    model: &'a str,
    truth: String,
    x: usize,
    positions: u64,
    good_lost: f64,
    good_pruned: f64,
    bad_left: f64,
    paper: f64,
}

/// Refuses a truth CSV path before anything runs.
pub fn check_output(args: &EvalArgs, inputs: &[std::path::PathBuf]) -> anyhow::Result<()> {
    if let Some(p) = &args.truth_csv {
        file_target(p, TRUTH_CSV, args.force, inputs)?;
    }
    Ok(())
}

/// Runs every model's engine-judged curve over `positions`.
pub fn run(
    args: &EvalArgs,
    truth: Truth,
    positions: &[Position],
    labels: &[String],
    inputs: &[std::path::PathBuf],
) -> anyhow::Result<()> {
    let judged = positions
        .iter()
        .filter(|p| p.teacher.as_ref().is_some_and(|t| t.moves.is_some()))
        .count();
    if judged == 0 {
        bail!(
            "--truth {truth}: none of the {} positions has a teacher's per-move values; \
             label the data with `akushu dataset label --per-move` first",
            positions.len()
        );
    }
    if judged < positions.len() && args.model.iter().any(|m| m.to_string() == "teacher") {
        bail!(
            "--model teacher: {} of the {} positions have no teacher's label",
            positions.len() - judged,
            positions.len()
        );
    }
    let mut curves = Vec::new();
    for (model, label) in args.model.iter().zip(labels) {
        let scorer = scorer_for(model, args.seed)?;
        let c = truth_curve(truth, scorer.as_ref(), positions);
        crate::outln!(
            "{label:<16} {truth}: n={} (skipped {}), a good move pruned @10/@30/@50: {:.3}/{:.3}/{:.3}, \
             good moves pruned @30 {:.3}, x keeping 95% of good moves {}, bad moves left @30 {:.2} of {:.2}, \
             paper @30 {:.3}, played move bad {:.3}",
            c.n,
            c.skipped,
            c.good_lost(10),
            c.good_lost(30),
            c.good_lost(50),
            c.good_pruned(30),
            c.largest_x_keeping(0.95),
            c.bad_left(30),
            c.bad_left(0),
            c.paper(30),
            c.played_bad_share()
        );
        curves.push((label.clone(), c));
    }
    if let Some(path) = &args.truth_csv {
        write_file(path, TRUTH_CSV, args.force, inputs, |w| {
            let mut csv = csv::Writer::from_writer(w);
            for (label, c) in &curves {
                for x in 0..NN {
                    csv.serialize(TruthRow {
                        model: label,
                        truth: truth.to_string(),
                        x,
                        positions: c.n,
                        good_lost: c.good_lost(x),
                        good_pruned: c.good_pruned(x),
                        bad_left: c.bad_left(x),
                        paper: c.paper(x),
                    })
                    .map_err(std::io::Error::other)?;
                }
            }
            csv.flush()
        })?;
        crate::outln!("wrote {}", path.display());
    }
    if let Some(path) = &args.png {
        let n = curves.first().map_or(0, |(_, c)| c.n);
        draw(args, truth, &curves, n, path, inputs)?;
    }
    Ok(())
}

/// The chart: per model a solid line (a good move pruned) and a dashed one (the played move
/// pruned, the paper's error on the same positions) in the model's colour. The legend names
/// each model once and the two line styles once, so it stays readable with many models.
fn draw(
    args: &EvalArgs,
    truth: Truth,
    curves: &[(String, TruthCurve)],
    n: u64,
    path: &std::path::Path,
    inputs: &[std::path::PathBuf],
) -> anyhow::Result<()> {
    use crate::report::plot::{Chart, Series, SeriesStyle, palette, render_chart};
    let loss = match truth {
        Truth::WinRate(l) => format!("{:.0}% win rate", l * 100.0),
        Truth::Score(p) => format!("{p} points"),
    };
    let title = args.title.clone().unwrap_or_else(|| {
        format!("Engine-judged pruning error (good = within {loss} of the teacher's best; n = {n})")
    });
    let mut chart = Chart::new(
        &title,
        "points rated worst and pruned (x of the 81)",
        "share of positions",
    )
    .x_range(0.0, 80.0)
    .y_range(0.0, 1.0)
    .size(args.chart_size.0, args.chart_size.1);
    let key = crate::report::plot::PAPER_COLOUR;
    chart = chart
        .series(Series::new("solid: a good move pruned", SeriesStyle::Line, Vec::new()).colour(key))
        .series(
            Series::new(
                "dashed: the played move pruned",
                SeriesStyle::Dashed,
                Vec::new(),
            )
            .colour(key),
        );
    for (k, (label, c)) in curves.iter().enumerate() {
        let line = |f: &dyn Fn(usize) -> f64| (0..NN).map(|x| (x as f64, f(x))).collect();
        chart = chart
            .series(
                Series::new(label.clone(), SeriesStyle::Line, line(&|x| c.good_lost(x)))
                    .colour(palette(k)),
            )
            .series(
                Series::new(String::new(), SeriesStyle::Dashed, line(&|x| c.paper(x)))
                    .colour(palette(k)),
            );
    }
    let ext = if crate::report::plot::is_svg(path) {
        "svg"
    } else {
        "png"
    };
    let tmp = std::env::temp_dir().join(format!("akushu-truth-{}.{ext}", std::process::id()));
    let drawn = render_chart(&chart, &tmp)
        .map_err(anyhow::Error::from)
        .and_then(|_| Ok(std::fs::read(&tmp)?));
    let _ = std::fs::remove_file(&tmp);
    let bytes = drawn?;
    write_file(
        path,
        super::eval::chart_kind(path),
        args.force,
        inputs,
        |w| w.write_all(&bytes),
    )?;
    crate::outln!("wrote {}", path.display());
    Ok(())
}
