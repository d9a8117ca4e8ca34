//! The reproduction report: `report/REPORT.md` with one section per experiment (what the
//! paper reports, our table with Wilson 95% intervals, the plot) and a first table that puts
//! our headline numbers next to the paper's.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::experiment::{ArmResult, CurveData, ExperimentResult, Outcome};

/// Settings of the report as a whole.
#[derive(Debug, Clone)]
pub struct ReportInfo {
    pub quick: bool,
    /// The command that produced it.
    pub command: String,
    /// Where the match folders are (relative to the report, for links).
    pub runs: PathBuf,
    /// Seconds the whole run took.
    pub seconds: f64,
    pub jobs: usize,
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
fn arms_table(out: &mut String, arms: &[ArmResult], runs_rel: &Path) {
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
            "| {} | `{}` | `{}` | {} | {} | {} | {} | {:.3} | {:.3} | {:.0} | [{}]({}/summary.md) |",
            a.arm.label,
            a.arm.config.black,
            a.arm.config.white,
            s.games,
            rate_cell(pa.overall.wins, pa.overall.games, lo, hi),
            rate_cell(s.black.wins, s.black.games, blo, bhi),
            s.errors,
            pa.seconds_per_move(),
            pb.seconds_per_move(),
            pa.sims_per_move(),
            rel.display(),
            rel.display()
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
    for (name, ys) in &data.series {
        let cross = data
            .x
            .iter()
            .zip(ys)
            .filter(|(_, y)| **y <= 0.10)
            .map(|(x, _)| *x)
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
        if let Some(c) = cross {
            let _ = writeln!(out, "\nlargest x with {name} <= 10%: {c} (paper: 32)");
        }
    }
}

/// Renders the whole report.
pub fn render(info: &ReportInfo, results: &[ExperimentResult], plots: &[PlotFile]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# akushu reproduction report\n");
    let _ = writeln!(
        out,
        "Written by `{}` (akushu {}), {} parallel games, in {:.0} s.\n",
        info.command,
        env!("CARGO_PKG_VERSION"),
        info.jobs,
        info.seconds
    );
    if info.quick {
        let _ = writeln!(
            out,
            "> **Quick mode.** Every arm plays only a handful of games with far fewer simulations \
             per move than the paper's 10,000 (see each table's specs), and some arms are left \
             out. The numbers show that the pipeline works end to end; their confidence \
             intervals are wide and they are **not** a reproduction of the paper. Run \
             `akushu reproduce` (without `--quick`) for the paper's settings.\n"
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
        let ours = match &r.outcome {
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
            Outcome::Curve(d) => format!("{} points from `{}`", d.x.len(), d.csv.display()),
            Outcome::Skipped(why) => format!("not run: {why}"),
        };
        let _ = writeln!(
            out,
            "| [{}](#{}) | {} | {} | {:.0} s |",
            r.file.name,
            anchor(&r.file.title),
            r.file.paper,
            ours,
            r.seconds
        );
    }
    for r in results {
        let _ = writeln!(out, "\n## {}\n", r.file.title);
        if !r.file.paper.is_empty() {
            let _ = writeln!(out, "**Paper:** {}\n", r.file.paper);
        }
        if !r.file.description.is_empty() {
            let _ = writeln!(out, "{}\n", r.file.description);
        }
        let _ = writeln!(
            out,
            "Experiment file: `experiments/{}.toml`; rerun with `akushu experiment run experiments/{}.toml{}`.\n",
            r.file.name,
            r.file.name,
            if r.quick { " --quick" } else { "" }
        );
        match &r.outcome {
            Outcome::Arms(arms) => {
                let s = &r.file.settings;
                let _ = writeln!(
                    out,
                    "komi {}, {} colours, seed {}, move cap {}.\n",
                    s.komi,
                    if s.alternate { "alternating" } else { "fixed" },
                    s.seed,
                    s.max_moves
                );
                arms_table(&mut out, arms, &info.runs);
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
            Outcome::Curve(data) => curve_table(&mut out, data),
            Outcome::Skipped(why) => {
                let _ = writeln!(out, "Not run: {why}");
            }
        }
        for p in plots.iter().filter(|p| p.experiment == r.file.name) {
            let _ = writeln!(out, "\n![{}]({})", r.file.title, p.file);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_follow_github() {
        assert_eq!(
            anchor("Tree pruning: win rate vs x"),
            "tree-pruning-win-rate-vs-x"
        );
    }
}
