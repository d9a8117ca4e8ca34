//! `eval --truth teacher[:LOSS]`: every model's engine-judged curve on a dataset labelled
//! per move (`dataset label --per-move`), printed, as CSV (`--truth-csv`) and as a chart
//! (`--png`), or the chart redrawn from such a CSV (`--truth-redraw`); see
//! [`crate::net::truth`].

use std::path::Path;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::{EvalArgs, scorer_for};
use crate::dataset::Position;
use crate::net::truth::{Truth, truth_curve};
use crate::rules::NN;
use crate::util::output::{FileKind, file_target, write_file};

/// The truth CSV: one row per model and x.
pub const TRUTH_CSV: FileKind = FileKind {
    name: "engine-judged curve CSV",
    signature: b"model,truth,x,",
    mark: None,
};

#[derive(Debug, Serialize, Deserialize)]
struct TruthRow {
    model: String,
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
                        model: label.clone(),
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
        let lines: Vec<TruthLines> = curves
            .iter()
            .map(|(label, c)| TruthLines {
                label: label.clone(),
                good_lost: (0..NN).map(|x| c.good_lost(x)).collect(),
                paper: (0..NN).map(|x| c.paper(x)).collect(),
            })
            .collect();
        draw(args, truth, &lines, n, path, inputs)?;
    }
    Ok(())
}

/// One model's two lines as drawn (x = 0..80).
#[derive(Debug, PartialEq)]
struct TruthLines {
    label: String,
    good_lost: Vec<f64>,
    paper: Vec<f64>,
}

/// `--truth-redraw FILE`: the chart of a truth CSV, every model in it in the file's order.
pub fn redraw(args: &EvalArgs, file: &Path) -> anyhow::Result<()> {
    let (truth, n, lines) = read_truth_csv(file)?;
    let path = args.png.as_ref().context("--truth-redraw needs --png")?;
    crate::outln!(
        "# {}: {} models, {truth}, n = {n}",
        file.display(),
        lines.len()
    );
    draw(args, truth, &lines, n, path, &args.inputs())
}

/// Reads a truth CSV: one truth and one position count throughout, each model's rows
/// x = 0..80 in order; anything else is refused naming the file and the data row.
fn read_truth_csv(file: &Path) -> anyhow::Result<(Truth, u64, Vec<TruthLines>)> {
    let mut reader = csv::Reader::from_path(file)
        .with_context(|| format!("--truth-redraw {}", file.display()))?;
    let mut lines: Vec<TruthLines> = Vec::new();
    let mut first: Option<(String, u64)> = None;
    for (k, row) in reader.deserialize::<TruthRow>().enumerate() {
        let at = || format!("{}: data row {}", file.display(), k + 1);
        let row = row.with_context(at)?;
        match &first {
            None => first = Some((row.truth.clone(), row.positions)),
            Some((truth, n)) if *truth != row.truth || *n != row.positions => bail!(
                "{}: truth {} over {} positions, but the first row's is {truth} over {n}",
                at(),
                row.truth,
                row.positions
            ),
            Some(_) => {}
        }
        if row.x == 0 {
            lines.push(TruthLines {
                label: row.model.clone(),
                good_lost: Vec::new(),
                paper: Vec::new(),
            });
        }
        let Some(last) = lines.last_mut().filter(|l| l.label == row.model) else {
            bail!(
                "{}: model {} starts at x = {}, not 0",
                at(),
                row.model,
                row.x
            );
        };
        if row.x != last.good_lost.len() || row.x >= NN {
            bail!(
                "{}: model {} has x = {}, expected {}",
                at(),
                row.model,
                row.x,
                last.good_lost.len()
            );
        }
        last.good_lost.push(row.good_lost);
        last.paper.push(row.paper);
    }
    if let Some(short) = lines.iter().find(|l| l.good_lost.len() != NN) {
        bail!(
            "{}: model {} has {} rows, expected {NN} (x = 0..80)",
            file.display(),
            short.label,
            short.good_lost.len()
        );
    }
    let Some((truth, n)) = first else {
        bail!("{}: no rows", file.display());
    };
    let truth = truth
        .parse::<Truth>()
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    Ok((truth, n, lines))
}

/// The chart: per model a solid line (a good move pruned) and a dashed one (the played move
/// pruned, the paper's error on the same positions) in the model's colour. The legend names
/// each model once and the two line styles once (in grey), so it stays readable with many
/// models; the teacher's own policy is black and the others take the palette in order, so
/// twenty models and the teacher repeat no colour.
fn draw(
    args: &EvalArgs,
    truth: Truth,
    lines: &[TruthLines],
    n: u64,
    path: &Path,
    inputs: &[std::path::PathBuf],
) -> anyhow::Result<()> {
    use crate::report::plot::{Chart, PAPER_COLOUR, Series, SeriesStyle, palette, render_chart};
    use plotters::style::RGBColor;
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
    let key = RGBColor(110, 110, 110);
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
    let mut next = 0;
    for l in lines {
        let colour = if l.label == "teacher" {
            PAPER_COLOUR
        } else {
            next += 1;
            palette(next - 1)
        };
        let points = |ys: &[f64]| ys.iter().enumerate().map(|(x, &y)| (x as f64, y)).collect();
        chart = chart
            .series(
                Series::new(l.label.clone(), SeriesStyle::Line, points(&l.good_lost))
                    .colour(colour),
            )
            .series(
                Series::new(String::new(), SeriesStyle::Dashed, points(&l.paper)).colour(colour),
            );
    }
    super::write_chart(args, path, inputs, |tmp| Ok(render_chart(&chart, tmp)?))?;
    crate::outln!("wrote {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("akushu-truth-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn rows(model: &str, xs: std::ops::Range<usize>, n: u64) -> String {
        xs.map(|x| {
            format!(
                "{model},teacher:0.02,{x},{n},{},0,0,{}\n",
                x as f64 / 80.0,
                x as f64 / 160.0
            )
        })
        .collect()
    }

    const HEAD: &str = "model,truth,x,positions,good_lost,good_pruned,bad_left,paper\n";

    /// A CSV `--truth-csv` writes reads back as its models' lines; one with a model cut
    /// short, rows out of order or two position counts is refused naming its row.
    #[test]
    fn a_truth_csv_reads_back_and_a_broken_one_is_refused() {
        let good = write(
            "good.csv",
            &format!("{HEAD}{}{}", rows("a", 0..NN, 9), rows("b", 0..NN, 9)),
        );
        let (truth, n, lines) = read_truth_csv(&good).unwrap();
        assert_eq!(
            (truth.to_string(), n, lines.len()),
            ("teacher:0.02".into(), 9, 2)
        );
        assert_eq!(lines[1].label, "b");
        assert_eq!(lines[1].good_lost[40], 0.5);
        assert_eq!(lines[1].paper[80], 0.5);
        let short = write(
            "short.csv",
            &format!("{HEAD}{}{}", rows("a", 0..40, 9), rows("b", 0..NN, 9)),
        );
        let e = format!("{:#}", read_truth_csv(&short).unwrap_err());
        assert!(e.contains("model a") && e.contains("40 rows"), "{e}");
        let skipped = write(
            "skip.csv",
            &format!("{HEAD}{}{}", rows("a", 0..40, 9), rows("a", 41..NN, 9)),
        );
        let e = format!("{:#}", read_truth_csv(&skipped).unwrap_err());
        assert!(
            e.contains("data row 41") && e.contains("expected 40"),
            "{e}"
        );
        let mixed = write(
            "mixed.csv",
            &format!("{HEAD}{}{}", rows("a", 0..NN, 9), rows("b", 0..NN, 8)),
        );
        let e = format!("{:#}", read_truth_csv(&mixed).unwrap_err());
        assert!(
            e.contains("data row 82") && e.contains("over 8 positions"),
            "{e}"
        );
    }
}
