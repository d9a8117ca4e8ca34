//! The chart of one or more models' error curves (`--png`, `--plot`).

use super::*;

/// One model's two error curves (x = 0..80), as drawn.
#[derive(Debug)]
pub(super) struct PlotCurve {
    pub(super) label: String,
    pub(super) all: Vec<f64>,
    pub(super) legal: Vec<f64>,
}

/// Reads `LABEL=FILE`, a curve CSV (`pruned,error_all,error_legal`, x = 0..80, in order).
pub(super) fn read_curve_csv(spec: &str) -> anyhow::Result<PlotCurve> {
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
pub(super) fn write_png(args: &EvalArgs, curves: &[PlotCurve], what: &str) -> anyhow::Result<()> {
    if let Some(path) = &args.png {
        let title = args
            .title
            .clone()
            .unwrap_or_else(|| format!("Pruning error rate ({what})"));
        let view = CurveView {
            x: args.x_range.unwrap_or((0, 80)),
            y_max: args.y_max.unwrap_or(1.0),
        };
        write_chart(args, path, &args.inputs(), |tmp| {
            plot_curves(tmp, curves, &title, args.chart_size, view)
        })?;
        crate::outln!("wrote {} ({} curves)", path.display(), curves.len());
    }
    Ok(())
}

/// Writes the chart `draw` draws to `path` under the output rule (which may stream it into
/// a pipe): drawn first to a private temporary file whose extension, `path`'s, picks the
/// format (PNG or SVG).
pub(super) fn write_chart(
    args: &EvalArgs,
    path: &Path,
    inputs: &[PathBuf],
    draw: impl FnOnce(&Path) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let ext = if crate::report::plot::is_svg(path) {
        "svg"
    } else {
        "png"
    };
    let tmp = std::env::temp_dir().join(format!("akushu-chart-{}.{ext}", std::process::id()));
    let drawn = draw(&tmp).and_then(|_| Ok(std::fs::read(&tmp)?));
    let _ = std::fs::remove_file(&tmp);
    let bytes = drawn?;
    write_file(path, chart_kind(path), args.force, inputs, |w| {
        w.write_all(&bytes)
    })?;
    Ok(())
}

/// clap parser for `--x-range`: `FROM..TO` with FROM < TO <= 80.
pub(super) fn x_range_arg(text: &str) -> Result<(u32, u32), String> {
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
pub(super) fn y_max_arg(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| *v > 0.0 && *v <= 1.0)
        .ok_or_else(|| format!("y max `{text}`: expected an error rate above 0, at most 1"))
}

/// The part of the curves a chart shows: x from..to (points pruned) and the top error rate.
#[derive(Debug, Clone, Copy)]
pub(super) struct CurveView {
    pub(super) x: (u32, u32),
    pub(super) y_max: f64,
}

impl CurveView {
    /// A curve's points inside the view. Error curves never fall as x grows, so a curve
    /// leaves through the top once: it ends at the point where it crosses `y_max`
    /// (interpolated), and nothing is drawn outside the plotting area.
    pub(super) fn clip(&self, curve: &[f64]) -> Vec<(f64, f64)> {
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
pub(super) fn plot_curves(
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
