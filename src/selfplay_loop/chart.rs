//! The loop's charts: each generation's gate with its interval (`ratings.png`) and every
//! candidate's error-rate curve (`curves.png`: held-out self-play games solid, the human test
//! split dashed where measured).

use std::path::Path;

use super::{LoopState, elo_of};
use crate::report::plot::{Chart, Series, SeriesStyle, palette, render_chart};

/// Writes `ratings.png` and `curves.png` into `out` (nothing before the first generation).
pub fn write_charts(state: &LoopState, out: &Path) -> anyhow::Result<()> {
    if state.generations.is_empty() {
        return Ok(());
    }
    render_chart(&gates_chart(state), &out.join("ratings.png"))?;
    let mut curves = Chart::new(
        "Candidates' error rate (prune the x worst points)",
        "x (points pruned)",
        "error rate",
    )
    .x_range(0.0, 80.0)
    .y_range(0.0, 1.0);
    for g in &state.generations {
        let line = |c: &Vec<f64>| c.iter().enumerate().map(|(x, &e)| (x as f64, e)).collect();
        if !g.curve_selfplay.is_empty() {
            curves = curves.series(Series::new(
                format!("gen {} self-play test", g.index),
                SeriesStyle::Line,
                line(&g.curve_selfplay),
            ));
        }
        if !g.curve_human.is_empty() {
            curves = curves.series(Series::new(
                format!("gen {} human test", g.index),
                SeriesStyle::LinePoints,
                line(&g.curve_human),
            ));
        }
    }
    render_chart(&curves, &out.join("curves.png"))?;
    Ok(())
}

/// Every generation's gate as what it measured: the candidate's Elo over the best network
/// so far with its 95% Wilson interval, promoted and refused candidates apart. Not a sum of
/// the promoted gates' estimates: those were kept because they came out high, so their sum
/// overstates the gain, and a point without its interval (3 wins of 4 read as +191 Elo) says
/// nothing of how little it rests on.
fn gates_chart(state: &LoopState) -> Chart {
    use crate::util::stats::{Z95, wilson};
    let mut promoted = (Vec::new(), Vec::new());
    let mut refused = (Vec::new(), Vec::new());
    let (mut lo, mut hi) = (0f64, 0f64);
    for g in &state.generations {
        let n = g.gate_games;
        let x = f64::from(g.index);
        let (low, high) = wilson(g.gate_points, f64::from(n), Z95);
        let (elo, low, high) = (
            elo_of(g.gate_points / f64::from(n.max(1)), n),
            elo_of(low, n),
            elo_of(high, n),
        );
        lo = lo.min(low);
        hi = hi.max(high);
        let side = if g.promoted {
            &mut promoted
        } else {
            &mut refused
        };
        side.0.push((x, elo));
        side.1.push((x, low, high));
    }
    let pad = ((hi - lo) * 0.05).max(10.0);
    let last = state.generations.iter().map(|g| g.index).max().unwrap_or(1);
    let mut chart = Chart::new(
        "Each generation's gate: the candidate against the best network so far",
        "generation",
        "candidate's Elo over the best so far (95% interval)",
    )
    .x_range(0.5, f64::from(last) + 0.5)
    .y_range(lo - pad, hi + pad)
    .hline(0.0, "equal");
    for (name, (points, band), colour) in [
        ("promoted", promoted, palette(0)),
        ("not promoted", refused, palette(1)),
    ] {
        if !points.is_empty() {
            chart = chart.series(
                Series::new(name, SeriesStyle::Points, points)
                    .with_band(band)
                    .colour(colour),
            );
        }
    }
    chart.categorical = last <= 10;
    chart
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every gate is drawn where it measured, with its interval: 3 wins of 4 is a point near
    /// +191 Elo whose interval reaches below equal strength, and a refused candidate is drawn
    /// too, apart from the promoted ones.
    #[test]
    fn every_gate_is_drawn_with_its_interval() {
        let text = std::fs::read_to_string("report/loops/value/state.json").unwrap();
        let mut state: LoopState = serde_json::from_str(&text).unwrap();
        assert!(state.generations.iter().any(|g| !g.promoted));
        let first = &mut state.generations[0];
        (first.gate_games, first.gate_points, first.promoted) = (4, 3.0, true);
        let chart = gates_chart(&state);
        let drawn: usize = chart.series.iter().map(|s| s.points.len()).sum();
        assert_eq!(drawn, state.generations.len());
        let promoted = &chart.series[0];
        assert_eq!(promoted.label, "promoted");
        let (x, elo) = promoted.points[0];
        let (_, low, high) = promoted.band[0];
        assert_eq!(x, f64::from(state.generations[0].index));
        assert!((elo - 190.8).abs() < 0.1, "{elo}");
        assert!(low < 0.0 && high > elo, "{low} {high}");
        assert_eq!(chart.series[1].label, "not promoted");
        let out = std::env::temp_dir().join(format!("akushu-gates-{}.png", std::process::id()));
        render_chart(&chart, &out).unwrap();
        std::fs::remove_file(out).unwrap();
    }
}
