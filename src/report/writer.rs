//! The reproduction report: `report/REPORT.md` with one section per experiment (what the
//! paper reports, our table with Wilson 95% intervals, the plot) and a first table that puts
//! our headline numbers next to the paper's.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::plot::{Chart, Series, SeriesStyle, render_chart};
use crate::arena::experiment::{ArmResult, CurveData, ExperimentResult, Family, Outcome};

/// Settings of the report as a whole.
#[derive(Debug, Clone)]
pub struct ReportInfo {
    pub quick: bool,
    /// The command that produced it.
    pub command: String,
    /// Where the match folders are (relative to the report, for links).
    pub runs: PathBuf,
    /// The same folder as given on the command line (for the rerun commands: they must
    /// extend the games this report counts, not the default scratch folder).
    pub runs_folder: PathBuf,
    /// Seconds the whole run took.
    pub seconds: f64,
    pub jobs: usize,
    /// Written with `--no-play`: a summary of the games played so far, none played now.
    pub snapshot: bool,
    /// Only these experiments were played (`--only`); the others' sections summarise the
    /// games already in the results folder.
    pub played_only: Vec<String>,
    /// The machine it ran on and its network kernels
    /// ([`crate::arena::identity::machine_and_kernels`]): the time and the figures depend on it.
    pub machine: String,
}

/// A plot written next to the report, for the report to link.
#[derive(Debug, Clone)]
pub struct PlotFile {
    pub experiment: String,
    pub file: String,
}

fn rate_cell(wins: u32, games: u32, lo: f64, hi: f64) -> String {
    if games == 0 {
        return "-".into();
    }
    format!(
        "{:.3} [{:.3}, {:.3}] ({wins}/{games})",
        wins as f64 / games as f64,
        lo,
        hi
    )
}

/// The arms table of a match experiment.
/// `link` false: the results folder is a scratch folder git ignores (quick mode), so each
/// arm's folder is named as text instead of linked (a link would not resolve in the
/// repository).
fn arms_table(out: &mut String, arms: &[ArmResult], runs_rel: &Path, link: bool) {
    let _ = writeln!(
        out,
        "| arm | black (A) | white (B) | games | A's win rate [Wilson 95%] | black's win rate | errors | s/move A | s/move B | sims/move A | results |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|");
    for a in arms {
        let s = &a.summary;
        let pa = &s.players[0];
        let pb = &s.players[1];
        let (lo, hi) = pa.overall.interval();
        let (blo, bhi) = s.black.interval();
        let rel = runs_rel.join(
            a.dir
                .components()
                .rev()
                .take(2)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<PathBuf>(),
        );
        let _ = writeln!(
            out,
            "| {} | `{}` | `{}` | {} | {} | {} | {} | {:.3} | {:.3} | {} | {} |",
            match &a.arm.same_games_as {
                Some(other) => format!("{} (the games of {other}, not played twice)", a.arm.label),
                None => a.arm.label.clone(),
            },
            // The players as the games record them (an arm reading another experiment's
            // games shows that match's specs).
            pa.spec,
            pb.spec,
            s.games,
            rate_cell(pa.overall.wins, pa.overall.games, lo, hi),
            rate_cell(s.black.wins, s.black.games, blo, bhi),
            s.errors,
            pa.seconds_per_move(),
            pb.seconds_per_move(),
            pa.sims_per_move()
                .map_or("not reported".to_string(), |s| format!("{s:.0}")),
            if link {
                format!("[{}]({}/summary.md)", rel.display(), rel.display())
            } else {
                format!("`{}`", rel.display())
            }
        );
    }
}

/// Player A's result of each game of an arm by game number (1 win, 0.5 draw, 0 loss).
fn scores_by_game(arm: &ArmResult) -> std::collections::BTreeMap<u32, f64> {
    crate::arena::record::read_csv(&arm.dir.join("games.csv"))
        .map(|rows| {
            rows.iter()
                .map(|r| (r.game, crate::arena::runner::a_score(r)))
                .collect()
        })
        .unwrap_or_default()
}

/// The multiplicity-adjusted view of a family of arms competing for one claim (see
/// [`Family`]): what a best-of-N arm is worth once the N is counted.
fn family_section(out: &mut String, family: &Family, arms: &[ArmResult]) {
    use crate::util::stats::{
        binomial_upper_tail, bonferroni_z, chi_squared_equal_rates, holm, mcnemar_exact, wilson,
    };
    let members: Vec<&ArmResult> = arms
        .iter()
        .filter(|a| family.arms.is_empty() || family.arms.contains(&a.arm.label))
        .filter(|a| a.summary.players[0].overall.games > 0)
        .collect();
    let m = members.len();
    if m < 2 {
        return;
    }
    let z = bonferroni_z(m);
    let rate = |a: &ArmResult| {
        let o = &a.summary.players[0].overall;
        (u64::from(o.wins), u64::from(o.games))
    };
    let _ = writeln!(
        out,
        "
**Family of {m} arms competing for one claim.** Intervals with family-wise 95% \
         confidence (Bonferroni: each at {:.2}%, z = {z:.3}){}{}.\n",
        100.0 * (1.0 - 0.05 / m as f64),
        family.target.map_or(String::new(), |t| format!(
            "; each arm's one-sided exact binomial test of \"A's win rate > {t}\" with Holm's \
             adjustment"
        )),
        family.baseline.as_ref().map_or(String::new(), |b| format!(
            "; McNemar's exact test of each arm against `{b}` over the games both played with \
             the same seed and colours (Holm-adjusted)"
        )),
    );
    let target_raw: Vec<f64> = family.target.map_or_else(Vec::new, |t| {
        members
            .iter()
            .map(|a| {
                let (w, n) = rate(a);
                binomial_upper_tail(w, n, t).min(1.0)
            })
            .collect()
    });
    let target_p = holm(&target_raw);
    let base = family
        .baseline
        .as_ref()
        .and_then(|b| members.iter().find(|a| &a.arm.label == b))
        .map(|a| (a.arm.label.clone(), scores_by_game(a)));
    let paired: Vec<Option<(u64, u64, f64)>> = members
        .iter()
        .map(|a| {
            let (label, base) = base.as_ref()?;
            if &a.arm.label == label {
                return None;
            }
            let mine = scores_by_game(a);
            let (mut only_arm, mut only_base) = (0, 0);
            for (g, s) in &mine {
                match base.get(g) {
                    Some(&b) if *s == 1.0 && b < 1.0 => only_arm += 1,
                    Some(&b) if *s < 1.0 && b == 1.0 => only_base += 1,
                    _ => {}
                }
            }
            Some((only_arm, only_base, mcnemar_exact(only_arm, only_base)))
        })
        .collect();
    let paired_adj = holm(
        &paired
            .iter()
            .filter_map(|p| p.map(|x| x.2))
            .collect::<Vec<_>>(),
    );
    let _ = writeln!(
        out,
        "| arm | A's win rate | family-wise 95% (Bonferroni) |{}{}",
        family
            .target
            .map_or(String::new(), |t| format!(" p(rate > {t}): raw, Holm |")),
        if base.is_some() {
            " won only here / only by the baseline; McNemar p: raw, Holm |"
        } else {
            ""
        }
    );
    let columns = 3 + usize::from(family.target.is_some()) + usize::from(base.is_some());
    let _ = writeln!(out, "|{}", "---|".repeat(columns));
    let mut k = 0;
    for (i, a) in members.iter().enumerate() {
        let (w, n) = rate(a);
        let (lo, hi) = wilson(w as f64, n as f64, z);
        let mut row = format!(
            "| {} | {:.3} ({w}/{n}) | [{lo:.3}, {hi:.3}] |",
            a.arm.label,
            w as f64 / n as f64
        );
        if family.target.is_some() {
            row.push_str(&format!(" {:.3}, {:.3} |", target_raw[i], target_p[i]));
        }
        if base.is_some() {
            match paired[i] {
                Some((x, y, raw)) => {
                    row.push_str(&format!(" {x} / {y}; {raw:.3}, {:.3} |", paired_adj[k]));
                    k += 1;
                }
                None => row.push_str(" (baseline) |"),
            }
        }
        let _ = writeln!(out, "{row}");
    }
    let groups: Vec<(u64, u64)> = members.iter().map(|a| rate(a)).collect();
    let (w, n) = groups.iter().fold((0, 0), |(w, n), g| (w + g.0, n + g.1));
    let (lo, hi) = wilson(w as f64, n as f64, crate::util::stats::Z95);
    let _ = write!(
        out,
        "\nPooled over the family: {w}/{n} = {:.4} [{lo:.3}, {hi:.3}] (Wilson 95%)",
        w as f64 / n as f64
    );
    if let Some((stat, df, p)) = chi_squared_equal_rates(&groups) {
        let _ = write!(
            out,
            "; equal rates across the arms: chi-squared {stat:.2} on {df} df, p = {p:.3}"
        );
    }
    let _ = writeln!(out, ".");
    if let Some(t) = family.target {
        let passing: Vec<&str> = members
            .iter()
            .zip(&target_p)
            .filter(|(_, p)| **p < 0.05)
            .map(|(a, _)| a.arm.label.as_str())
            .collect();
        let _ = writeln!(
            out,
            "\n{}",
            if passing.is_empty() {
                format!(
                    "No arm shows a win rate above {t} at family-wise 5% (Holm): the family's \
                     best arm is a best-of-{m} and its raw interval overstates it."
                )
            } else {
                format!(
                    "Above {t} at family-wise 5% (Holm): {}.",
                    passing.join(", ")
                )
            }
        );
    }
}

fn curve_table(out: &mut String, data: &CurveData) {
    let names: Vec<&str> = data.series.iter().map(|(n, _)| n.as_str()).collect();
    let _ = writeln!(out, "| x | {} |", names.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(names.len()));
    for (i, x) in data.x.iter().enumerate() {
        // The whole curve has 81 rows: show every fifth and the paper's x = 30, 32, 41.
        let xi = *x as i64;
        if xi % 5 != 0 && ![30, 32, 41].contains(&xi) {
            continue;
        }
        let ys: Vec<String> = data
            .series
            .iter()
            .map(|(_, v)| format!("{:.4}", v[i]))
            .collect();
        let _ = writeln!(out, "| {x} | {} |", ys.join(" | "));
    }
    if let Some(n) = data.positions {
        let _ = writeln!(out, "\nn = {} positions.", indicatif::HumanCount(n));
    }
    for (name, ys) in &data.series {
        match largest_x_within_10(&data.x, ys) {
            Some(c) => {
                let _ = writeln!(
                    out,
                    "\nlargest x with {name} <= 10%: {c}{}",
                    paper_note(name)
                );
            }
            None => {
                let _ = writeln!(out, "\n{name} is above 10% at every x");
            }
        }
    }
}

/// The largest x at which the curve `ys` is still at most 10%.
fn largest_x_within_10(x: &[f64], ys: &[f64]) -> Option<f64> {
    x.iter()
        .zip(ys)
        .filter(|(_, y)| **y <= 0.10)
        .map(|(x, _)| *x)
        .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
}

/// The paper's figure beside a crossing, for the form the paper measured only: it ranked all
/// 81 points; a legal-moves curve has no paper figure to compare with.
fn paper_note(series: &str) -> &'static str {
    if series.ends_with("_all") {
        " (paper, all 81 points ranked: 32)"
    } else {
        " (legal moves only: the paper has no such figure)"
    }
}

/// The overview's cell of a curve: where each form crosses 10% error, and n.
fn curve_cell(data: &CurveData) -> String {
    let crossings: Vec<String> = data
        .series
        .iter()
        .map(|(name, ys)| match largest_x_within_10(&data.x, ys) {
            Some(c) => format!("{name} {c}"),
            None => format!("{name} none"),
        })
        .collect();
    format!(
        "largest x under 10% error: {}{}",
        crossings.join(", "),
        data.positions.map_or(String::new(), |n| format!(
            " (n = {})",
            indicatif::HumanCount(n)
        ))
    )
}

/// Renders the whole report.
pub fn render(info: &ReportInfo, results: &[ExperimentResult], plots: &[PlotFile]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# akushu reproduction report\n");
    let _ = writeln!(
        out,
        "Written by `{}` (akushu {}), {} parallel games, in {:.0} s on {}.\n",
        info.command,
        env!("CARGO_PKG_VERSION"),
        info.jobs,
        info.seconds,
        info.machine
    );
    if info.snapshot {
        let _ = writeln!(
            out,
            "> **Snapshot.** No games were played for this report: it summarises the games \
             already in the results folders, so arms may hold fewer games than their files ask \
             for (see each table's games column), and arms with no games are left out.\n"
        );
    }
    if !info.played_only.is_empty() {
        let _ = writeln!(
            out,
            "> **Partly played.** This run played only {}; every other section summarises the \
             games already in the results folder, as `--no-play` does.\n",
            info.played_only
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if info.quick {
        let _ = writeln!(
            out,
            "> **Quick mode.** Every arm plays only a handful of games with far fewer simulations \
             per move than the paper's 10,000 (see each table's specs), and some arms are left \
             out. The numbers show that the pipeline works end to end; their confidence \
             intervals are wide and they are **not** a reproduction of the paper. Run \
             `akushu reproduce` (without `--quick`) for the paper's settings. The games are \
             in a scratch folder git ignores, so the arms' folders are named, not linked.\n"
        );
    }
    let _ = writeln!(
        out,
        "Training data: the OGS 9x9 corpus stands in for the paper's KGS records (KGS archives \
         cannot be reached here). Win rates are player A's (the black player in fixed-colour \
         experiments) with Wilson 95% intervals; games lost by an engine error count as losses \
         and are also counted separately.\n"
    );
    let _ = writeln!(out, "## Overview\n");
    let _ = writeln!(out, "| experiment | paper | ours | time |");
    let _ = writeln!(out, "|---|---|---|---|");
    for r in results {
        let mut ours = match &r.outcome {
            Outcome::Arms(arms) if arms.is_empty() => "no games yet".to_string(),
            Outcome::Arms(arms) => arms
                .iter()
                .map(|a| {
                    format!(
                        "{}: {:.3}",
                        a.arm.label,
                        a.summary.players[0].overall.rate()
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
            Outcome::Curve(d) => curve_cell(d),
            Outcome::Skipped(why) => format!("not run: {why}"),
        };
        if !r.failed_arms.is_empty() {
            let labels: Vec<&str> = r.failed_arms.iter().map(|(l, _)| l.as_str()).collect();
            ours.push_str(&format!("; **failed arms:** {}", labels.join(", ")));
        }
        let _ = writeln!(
            out,
            "| [{}](#{}) | {} | {} | {:.0} s |",
            r.file.name,
            anchor(&r.file.fill(&r.file.title, r.quick)),
            r.file.paper,
            ours,
            r.seconds
        );
    }
    for r in results {
        let _ = writeln!(out, "\n## {}\n", r.file.fill(&r.file.title, r.quick));
        if !r.file.paper.is_empty() {
            let _ = writeln!(out, "**Paper:** {}\n", r.file.paper);
        }
        if !r.file.description.is_empty() {
            let _ = writeln!(out, "{}\n", r.file.description);
        }
        let _ = writeln!(
            out,
            "Experiment file: `experiments/{}.toml`; rerun or extend with `akushu experiment run experiments/{}.toml{} --out {}`.\n",
            r.file.name,
            r.file.name,
            if r.quick { " --quick" } else { "" },
            info.runs_folder.display()
        );
        match &r.outcome {
            Outcome::Arms(arms) => {
                let s = &r.file.settings;
                let _ = writeln!(
                    out,
                    "komi {}, {} colours, seed {}, move cap {}.\n",
                    s.rules.komi,
                    if s.rules.alternate {
                        "alternating"
                    } else {
                        "fixed"
                    },
                    s.seed,
                    s.rules.max_moves
                );
                if arms.is_empty() {
                    let _ = writeln!(
                        out,
                        "No games yet: no arm of this experiment has games in `{}`.",
                        info.runs_folder.display()
                    );
                } else {
                    arms_table(&mut out, arms, &info.runs, !info.quick);
                    if let Some(f) = &r.file.family {
                        family_section(&mut out, f, arms);
                    }
                    let overhead: Vec<String> = arms
                        .iter()
                        .map(|a| format!("{:.2}%", a.summary.overhead() * 100.0))
                        .collect();
                    let _ = writeln!(
                        out,
                        "\nArena overhead per arm (wall vs thinking): {}",
                        overhead.join(", ")
                    );
                }
            }
            Outcome::Curve(data) => curve_table(&mut out, data),
            Outcome::Skipped(why) => {
                let _ = writeln!(out, "Not run: {why}");
            }
        }
        for (label, why) in &r.failed_arms {
            let _ = writeln!(out, "\nArm **{label}** failed: {why}");
        }
        for p in plots.iter().filter(|p| p.experiment == r.file.name) {
            let _ = writeln!(
                out,
                "\n![{}]({})",
                r.file.fill(&r.file.title, r.quick),
                p.file
            );
        }
    }
    out
}

/// GitHub's heading anchor for `title`.
fn anchor(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c)
            } else if c == ' ' {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Axis range covering `values` with a little margin (`(0, 1)` when empty).
fn padded_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    // A single value gets room in proportion to its size (a lone x = 2000 spans 1000-3000
    // with whole-number ticks, not 1999-2001), at least one unit beyond 1.
    let pad = if hi - lo < 1e-9 {
        (hi.abs() * 0.5).max(if hi.abs() >= 1.0 { 1.0 } else { 0.5 })
    } else {
        (hi - lo) * 0.05
    };
    (lo - pad, hi + pad)
}

/// Player A's win rate at each arm's x, sorted by x, with its Wilson band and the largest
/// arm's game count; `None` when no arm has an x.
struct WinRateLine {
    line: Vec<(f64, f64)>,
    band: Vec<(f64, f64, f64)>,
    games: u32,
}

/// The line of the arms of one `series` (`None`: the main line) that have an x and games.
fn win_rate_line(arms: &[ArmResult], series: Option<&str>) -> Option<WinRateLine> {
    let mut pts: Vec<(f64, &ArmResult)> = arms
        .iter()
        .filter(|a| a.arm.series.as_deref() == series && a.summary.games > 0)
        .filter_map(|a| a.arm.x.map(|x| (x, a)))
        .collect();
    if pts.is_empty() {
        return None;
    }
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    fn rate(a: &ArmResult) -> &crate::arena::summary::Rate {
        &a.summary.players[0].overall
    }
    Some(WinRateLine {
        line: pts.iter().map(|(x, a)| (*x, rate(a).rate())).collect(),
        band: pts
            .iter()
            .map(|(x, a)| {
                let (lo, hi) = rate(a).interval();
                (*x, lo, hi)
            })
            .collect(),
        games: pts.iter().map(|(_, a)| a.summary.games).max().unwrap_or(0),
    })
}

/// Sideways offset of series `k` of `n` on a categorical axis, so that points of several
/// series at one category sit side by side instead of on top of each other.
fn dodge(k: usize, n: usize) -> f64 {
    const STEP: f64 = 0.08;
    (k as f64 - (n as f64 - 1.0) / 2.0) * STEP
}

/// The chart of one experiment, if it has something to draw: win rate against the arms' x
/// with the Wilson band (points with error bars on a categorical axis), or the curve's
/// series; plus the paper's points and reference line, and the arms of the experiments its
/// plot compares with, where `all` has them. Colours go by role, the same in every chart:
/// akushu's main line is palette colour 0, further lines follow in order, the paper's
/// points are black and reference lines grey.
pub fn chart(result: &ExperimentResult, all: &[ExperimentResult]) -> Option<Chart> {
    use super::plot::{PAPER_COLOUR, palette};
    let f = &result.file;
    let plot = &f.plot;
    let x_label = f.fill(&plot.x_label, result.quick);
    let mut chart = Chart::new(
        &f.fill(&f.title, result.quick),
        if x_label.is_empty() { "x" } else { &x_label },
        if plot.y_label.is_empty() {
            "win rate"
        } else {
            &plot.y_label
        },
    );
    chart.categorical = plot.categorical;
    chart.x_names = plot
        .x_names
        .iter()
        .filter_map(|(k, v)| Some((k.trim().parse::<f64>().ok()?, v.clone())))
        .collect();
    let mut xs: Vec<f64> = plot.paper_points.iter().map(|p| p[0]).collect();
    let mut ys: Vec<f64> = vec![0.0, 1.0];
    let mut colours = 0;
    match &result.outcome {
        Outcome::Arms(arms) => {
            let mut names: Vec<Option<&str>> = vec![None];
            for a in arms {
                if let Some(s) = a.arm.series.as_deref()
                    && !names.contains(&Some(s))
                {
                    names.push(Some(s));
                }
            }
            let lines: Vec<(Option<&str>, WinRateLine)> = names
                .into_iter()
                .filter_map(|n| win_rate_line(arms, n).map(|l| (n, l)))
                .collect();
            if lines.is_empty() {
                return None;
            }
            let n = lines.len();
            for (k, (name, WinRateLine { line, band, games })) in lines.into_iter().enumerate() {
                xs.extend(line.iter().map(|p| p.0));
                let label = match name {
                    Some(s) => s,
                    None if !plot.label.is_empty() => &plot.label,
                    None if plot.compare.is_empty() => "akushu",
                    None => &f.name,
                };
                let (style, line, band, interval) = if plot.categorical {
                    let dx = dodge(k, n);
                    (
                        SeriesStyle::Points,
                        line.iter().map(|&(x, y)| (x + dx, y)).collect(),
                        band.iter().map(|&(x, lo, hi)| (x + dx, lo, hi)).collect(),
                        "Wilson 95% bars",
                    )
                } else {
                    (SeriesStyle::LinePoints, line, band, "Wilson 95% interval")
                };
                chart = chart.series(
                    Series::new(
                        format!("{label} (up to {games} games per point, {interval})"),
                        style,
                        line,
                    )
                    .with_band(band)
                    .colour(palette(colours)),
                );
                colours += 1;
            }
        }
        Outcome::Curve(data) => {
            if data.x.is_empty() {
                return None;
            }
            xs.extend(data.x.iter().copied());
            if let Some(n) = data.positions {
                chart.title = format!(
                    "{} (n = {} positions)",
                    chart.title,
                    indicatif::HumanCount(n)
                );
            }
            for (name, values) in &data.series {
                ys.extend(values.iter().copied());
                let pts = data.x.iter().copied().zip(values.iter().copied()).collect();
                chart = chart.series(
                    Series::new(name.clone(), SeriesStyle::Line, pts).colour(palette(colours)),
                );
                colours += 1;
            }
        }
        Outcome::Skipped(_) => return None,
    }
    for (i, name) in plot.compare.iter().enumerate() {
        let Some(Outcome::Arms(arms)) = all
            .iter()
            .find(|r| &r.file.name == name)
            .map(|r| &r.outcome)
        else {
            continue;
        };
        let Some(WinRateLine { line, games, .. }) = win_rate_line(arms, None) else {
            continue;
        };
        xs.extend(line.iter().map(|p| p.0));
        let label = plot.compare_labels.get(i).unwrap_or(name);
        chart = chart.series(
            Series::new(
                format!("{label} (up to {games} games per point)"),
                SeriesStyle::LinePoints,
                line,
            )
            .colour(palette(colours)),
        );
        colours += 1;
    }
    if !plot.paper_points.is_empty() {
        let pts = plot.paper_points.iter().map(|p| (p[0], p[1])).collect();
        let label = if plot.paper_label.is_empty() {
            "paper"
        } else {
            &plot.paper_label
        };
        chart = chart.series(Series::new(label, SeriesStyle::Points, pts).colour(PAPER_COLOUR));
    }
    if let Some(b) = plot.baseline {
        let label = if plot.baseline_label.is_empty() {
            "reference"
        } else {
            &plot.baseline_label
        };
        chart = chart.hline(b, label);
    }
    let (x0, x1) = if plot.categorical {
        // Half a category of room on each side, so the side-by-side points fit.
        let lo = xs.iter().map(|x| x.round()).fold(f64::INFINITY, f64::min);
        let hi = xs
            .iter()
            .map(|x| x.round())
            .fold(f64::NEG_INFINITY, f64::max);
        (lo - 0.5, hi + 0.5)
    } else {
        padded_range(xs.into_iter())
    };
    let (y0, y1) = (
        ys.iter().copied().fold(0.0, f64::min),
        ys.iter().copied().fold(1.0, f64::max),
    );
    Some(chart.x_range(x0, x1).y_range(y0, y1))
}

/// The chart of a ratings table: every player at its rank (`A1`, ..., then `B1`, ...) with
/// its 95% interval as an error bar, one colour per group of linked players, a gap between
/// groups. Each group's Elo are relative to its own reference (GNU Go 3.8 level 10 for `A`),
/// which the legend names. None with fewer than two players. Its width grows with the
/// players, so that every name is written in full up to `NAME_CHARS`.
pub fn ratings_chart(ratings: &[crate::arena::rating::Rating]) -> Option<Chart> {
    use super::plot::palette;
    use crate::arena::rating::{group_name, groups, is_anchor};
    if ratings.len() < 2 {
        return None;
    }
    let lo = ratings
        .iter()
        .map(|r| r.elo - r.margin)
        .fold(f64::INFINITY, f64::min);
    let hi = ratings
        .iter()
        .map(|r| r.elo + r.margin)
        .fold(f64::NEG_INFINITY, f64::max);
    let pad = ((hi - lo) * 0.05).max(10.0);
    let mut chart = Chart::new(
        "Ratings of every player in the match folders (Bradley-Terry)",
        "player (the ratings table's rank: name)",
        "Elo (0 = the group's reference)",
    );
    let mut x = 0.0;
    for (k, group) in groups(ratings).iter().enumerate() {
        let name = group_name(k);
        let mut points = Vec::new();
        let mut band = Vec::new();
        for (rank, r) in group.iter().enumerate() {
            x += 1.0;
            points.push((x, r.elo));
            band.push((x, r.elo - r.margin, r.elo + r.margin));
            chart.x_names.push((
                x,
                format!("{name}{}: {}", rank + 1, short_player(&r.player)),
            ));
        }
        // The reference by its rank (the table names it): short enough for any legend.
        let reference = &group[0].reference;
        let at = group
            .iter()
            .position(|r| &r.player == reference)
            .map_or(String::new(), |i| format!("{name}{}", i + 1));
        let label = if is_anchor(reference) {
            format!(
                "{name}: {} player(s); 0 = {at}, GNU Go 3.8 level 10",
                group.len()
            )
        } else {
            format!(
                "{name}: {} player(s), not linked to GNU Go; 0 = {at}",
                group.len()
            )
        };
        chart = chart.series(
            Series::new(label, SeriesStyle::Points, points)
                .with_band(band)
                .colour(palette(k)),
        );
        // An unnamed tick between groups keeps them apart.
        x += 1.0;
        chart.x_names.push((x, String::new()));
    }
    chart.x_names.pop();
    x -= 1.0;
    chart = chart.x_range(0.5, x + 0.5).y_range(lo - pad, hi + pad);
    chart.categorical = true;
    chart.upright_x_names = true;
    let (width, height) = super::plot::DEFAULT_SIZE;
    chart.size = (width.max(14 * x as u32 + 300), height.max(1000));
    Some(chart)
}

/// How many characters of a player's name the ratings chart writes.
const NAME_CHARS: usize = 72;

/// A player's name for a chart: its spec without what the table adds (model checksums, the
/// clock when there is none) and without the `models/` folder, cut at `NAME_CHARS`.
fn short_player(name: &str) -> String {
    let mut name = name.replace(" (no clock)", "").replace("models/", "");
    // " [cnn-x 0123abcd]" after the spec: the checksums the table shows.
    while let Some(start) = name.find(" [") {
        let Some(len) = name[start..].find(']') else {
            break;
        };
        name.replace_range(start..start + len + 1, "");
    }
    if name.chars().count() <= NAME_CHARS {
        return name;
    }
    let head: String = name.chars().take(NAME_CHARS - 1).collect();
    format!("{}…", head.trim_end())
}

/// How report charts are drawn (`--chart-size`, `--chart-format`, `--chart-title`).
#[derive(Debug, Clone)]
pub struct ChartOptions {
    pub size: (u32, u32),
    pub format: ChartFormat,
    /// Replaces the experiment's title (one experiment's chart).
    pub title: Option<String>,
}

impl Default for ChartOptions {
    fn default() -> ChartOptions {
        ChartOptions {
            size: super::plot::DEFAULT_SIZE,
            format: ChartFormat::Png,
            title: None,
        }
    }
}

/// A chart file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ChartFormat {
    Png,
    Svg,
}

impl ChartFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ChartFormat::Png => "png",
            ChartFormat::Svg => "svg",
        }
    }
}

/// One arm of a report as a row of `results.csv` / an object of `results.json`: the
/// report's tables for programs (pandas, R, jq) instead of Markdown.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ResultRow {
    pub experiment: String,
    pub arm: String,
    pub x: Option<f64>,
    pub series: Option<String>,
    /// The match folder the games are in.
    pub folder: String,
    pub black: String,
    pub white: String,
    pub games: u32,
    pub a_wins: u32,
    pub a_rate: f64,
    pub a_wilson_low: f64,
    pub a_wilson_high: f64,
    pub black_wins: u32,
    pub draws: u32,
    pub errors: u32,
    pub a_seconds_per_move: f64,
    pub b_seconds_per_move: f64,
    pub a_cpu_seconds_per_move: Option<f64>,
    pub b_cpu_seconds_per_move: Option<f64>,
    /// `None` where A's engine does not report them (an outside engine).
    pub a_sims_per_move: Option<f64>,
}

/// Every played arm of `results`, in report order.
pub fn result_rows(results: &[ExperimentResult]) -> Vec<ResultRow> {
    let mut rows = Vec::new();
    for r in results {
        let Outcome::Arms(arms) = &r.outcome else {
            continue;
        };
        for a in arms {
            let s = &a.summary;
            let (pa, pb) = (&s.players[0], &s.players[1]);
            let (lo, hi) = pa.overall.interval();
            rows.push(ResultRow {
                experiment: r.file.name.clone(),
                arm: a.arm.label.clone(),
                x: a.arm.x,
                series: a.arm.series.clone(),
                folder: a.dir.display().to_string(),
                black: pa.spec.clone(),
                white: pb.spec.clone(),
                games: s.games,
                a_wins: pa.overall.wins,
                a_rate: pa.overall.rate(),
                a_wilson_low: lo,
                a_wilson_high: hi,
                black_wins: s.black.wins,
                draws: pa.draws,
                errors: s.errors,
                a_seconds_per_move: pa.seconds_per_move(),
                b_seconds_per_move: pb.seconds_per_move(),
                a_cpu_seconds_per_move: pa.cpu_per_move(),
                b_cpu_seconds_per_move: pb.cpu_per_move(),
                a_sims_per_move: pa.sims_per_move(),
            });
        }
    }
    rows
}

/// Writes `results.csv` and `results.json` (the same rows) into `dir`, each atomically.
pub fn write_results(results: &[ExperimentResult], dir: &Path) -> anyhow::Result<()> {
    use anyhow::Context;
    let rows = result_rows(results);
    let mut csv = csv::Writer::from_writer(Vec::new());
    for r in &rows {
        csv.serialize(r)?;
    }
    let csv = csv.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    let json = serde_json::to_string_pretty(&rows)? + "\n";
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (name, bytes) in [("results.csv", csv), ("results.json", json.into_bytes())] {
        let path = dir.join(name);
        crate::util::fsio::write_atomic(&path, &bytes)?;
    }
    Ok(())
}

/// Draws every experiment's chart into `dir` as `<name>.png`.
pub fn write_plots(
    results: &[ExperimentResult],
    dir: &Path,
    options: &ChartOptions,
) -> Vec<PlotFile> {
    let mut files = Vec::new();
    for r in results {
        let Some(mut c) = chart(r, results) else {
            continue;
        };
        c.size = options.size;
        if let Some(t) = &options.title {
            c.title = t.clone();
        }
        let file = format!("{}.{}", r.file.name, options.format.extension());
        match render_chart(&c, &dir.join(&file)) {
            Ok(()) => files.push(PlotFile {
                experiment: r.file.name.clone(),
                file,
            }),
            Err(e) => crate::errln!("warning: plot for {} not drawn: {e}", r.file.name),
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_value_gets_room_in_proportion() {
        assert_eq!(padded_range([2000.0].into_iter()), (1000.0, 3000.0));
        assert_eq!(padded_range([1.0].into_iter()), (0.0, 2.0));
        assert_eq!(padded_range([0.6].into_iter()), (0.09999999999999998, 1.1));
        assert_eq!(padded_range([0.0, 80.0].into_iter()), (-4.0, 84.0));
        assert_eq!(padded_range(std::iter::empty()), (0.0, 1.0));
    }

    #[test]
    fn anchors_follow_github() {
        assert_eq!(
            anchor("Tree pruning: win rate vs x"),
            "tree-pruning-win-rate-vs-x"
        );
    }

    #[test]
    fn the_ratings_chart_shows_every_group_with_intervals_by_rank() {
        use crate::arena::rating::Rating;
        let anchor = "gtp:gnugo --mode gtp --level 10 --chinese-rules (no clock)";
        let r = |player: &str, elo: f64, margin: f64, reference: &str| Rating {
            player: player.into(),
            elo,
            margin,
            games: 10.0,
            score: 0.5,
            reference: reference.into(),
        };
        let long = "strong8:max_seconds=0.1,policy=nnq:models/cnn-distilled-b6c96-6x64-cosine3 \
                    [models/cnn-distilled-b6c96-6x64-cosine3 ea9f26eab0bf3367] (no clock)";
        let ratings = [
            r("a", 120.0, 40.0, anchor),
            r(anchor, 0.0, 0.0, anchor),
            r("b", -80.0, 60.0, anchor),
            r("island", 0.0, 0.0, "island"),
            r(long, -30.0, 20.0, "island"),
        ];
        assert!(crate::arena::rating::is_anchor(anchor));
        let c = ratings_chart(&ratings).unwrap();
        assert_eq!(c.series.len(), 2, "one series per group");
        assert_eq!(
            c.series[0].points,
            vec![(1.0, 120.0), (2.0, 0.0), (3.0, -80.0)]
        );
        assert_eq!(c.series[0].band[2], (3.0, -140.0, -20.0));
        assert_eq!(
            c.series[1].points,
            vec![(5.0, 0.0), (6.0, -30.0)],
            "after a gap"
        );
        assert!(
            c.series[1].label.ends_with("0 = B1"),
            "{}",
            c.series[1].label
        );
        assert!(
            c.series[0].label.contains("0 = A2, GNU Go"),
            "{}",
            c.series[0].label
        );
        assert_eq!(c.x_range, (0.5, 6.5));
        let names: Vec<&str> = c.x_names.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(
            names[..4],
            [
                "A1: a",
                "A2: gtp:gnugo --mode gtp --level 10 --chinese-rules",
                "A3: b",
                ""
            ]
        );
        assert_eq!(
            names[5], "B2: strong8:max_seconds=0.1,policy=nnq:cnn-distilled-b6c96-6x64-cosine3",
            "the whole spec, without what the table adds"
        );
        assert_ne!(c.series[0].colour, c.series[1].colour);
        assert!(ratings_chart(&ratings[3..4]).is_none());
    }
}
