//! The loop's charts: the best network's rating per generation (`ratings.png`) and every
//! candidate's error-rate curve (`curves.png`: held-out self-play games solid, the human test
//! split dashed where measured).

use std::path::Path;

use super::LoopState;
use crate::report::plot::{Chart, Series, SeriesStyle, render_chart};

/// Writes `ratings.png` and `curves.png` into `out` (nothing before the first generation).
pub fn write_charts(state: &LoopState, out: &Path) -> anyhow::Result<()> {
    if state.generations.is_empty() {
        return Ok(());
    }
    let mut points = vec![(0.0, 0.0)];
    points.extend(
        state
            .generations
            .iter()
            .map(|g| (f64::from(g.index), g.elo)),
    );
    let (lo, hi) = points
        .iter()
        .fold((0f64, 0f64), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    let ratings = Chart::new(
        "Best network's rating per generation (gate Elo, promotions only)",
        "generation",
        "Elo over the start network",
    )
    .x_range(0.0, f64::from(state.generations.len() as u32).max(1.0))
    .y_range(lo - 50.0, hi + 50.0)
    .series(Series::new("best", SeriesStyle::LinePoints, points));
    render_chart(&ratings, &out.join("ratings.png"))?;

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
