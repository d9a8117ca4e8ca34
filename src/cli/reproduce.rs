//! `akushu reproduce [--quick]`: runs every experiment file and writes `report/REPORT.md`
//! with tables and plots. `--quick` (few games, few simulations) must finish in under ten
//! minutes on two cores and says so in the report.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;

use crate::arena::experiment::{self, ExperimentResult, Outcome, RunOptions};
use crate::report::writer::{ReportInfo, render, write_plots};

use super::experiment::{default_jobs, default_runs};

#[derive(Debug, Clone, Args)]
pub struct ReproduceArgs {
    /// Few games and few simulations per arm: a quick check of the whole pipeline (README.md
    /// gives its measured time on 2 cores).
    #[arg(long)]
    pub quick: bool,
    /// Folder of the experiment files.
    #[arg(long, default_value = "experiments")]
    pub experiments: PathBuf,
    /// Folder for REPORT.md and the plots.
    #[arg(long, default_value = "report")]
    pub out: PathBuf,
    /// Folder for the match results (default `<out>/runs` or `<out>/runs-quick`).
    #[arg(long)]
    pub runs: Option<PathBuf>,
    /// Play only these experiments (names, comma-separated). The report still has every
    /// experiment: the others are summarised from the games already in the results folder.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Games played at once.
    #[arg(long, default_value_t = default_jobs(), value_parser = crate::util::num::jobs_arg)]
    pub jobs: usize,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
    /// Play nothing: write the report from the games already in the results folders (where
    /// long runs stand, even while they go on).
    #[arg(long)]
    pub no_play: bool,
    /// Write into `--out` even when it holds files akushu did not write (never the
    /// experiment files).
    #[arg(long)]
    pub force: bool,
    /// Chart size in pixels, `WIDTHxHEIGHT`.
    #[arg(long, default_value = "900x600", value_parser = crate::report::plot::parse_size)]
    pub chart_size: (u32, u32),
    /// Chart file format.
    #[arg(long, value_enum, default_value = "png")]
    pub chart_format: crate::report::writer::ChartFormat,
}

/// The output kind in a report folder's marker file.
const REPORT_KIND: &str = "report";

/// Checks that `--out` may receive a report: absent, empty, marked as a report, or holding
/// a `REPORT.md` that akushu wrote; never the experiments folder.
fn check_report_dir(args: &ReproduceArgs) -> anyhow::Result<()> {
    use crate::util::output::{FileKind, check_dir_output, check_not_input, file_target};
    check_not_input(&args.out, std::slice::from_ref(&args.experiments))?;
    let report = FileKind {
        name: "akushu report",
        signature: b"# akushu reproduction report\n",
        mark: None,
    };
    let ours = args.out.join("REPORT.md").is_file()
        && file_target(&args.out.join("REPORT.md"), report, false, &[]).is_ok();
    if !ours {
        check_dir_output(&args.out, REPORT_KIND, args.force, &[])?;
    }
    Ok(())
}

/// The paper's order; experiments not listed follow alphabetically.
const ORDER: &[&str] = &[
    "error_rate",
    "baseline",
    "tree_pruning",
    "random_pruning",
    "playout_pruning",
    "soft_pruning",
    "gnugo_depth",
];

/// The experiment files of `dir` in report order.
pub fn experiment_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    let rank = |p: &PathBuf| {
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        (
            ORDER.iter().position(|n| *n == stem).unwrap_or(ORDER.len()),
            stem.to_string(),
        )
    };
    files.sort_by_key(rank);
    if files.is_empty() {
        bail!("no experiment files (*.toml) in {}", dir.display());
    }
    Ok(files)
}

pub fn run(args: ReproduceArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let runs = args.runs.clone().unwrap_or_else(|| {
        args.out
            .join(default_runs(args.quick).file_name().expect("named"))
    });
    crate::outln!("# akushu reproduce (akushu {})", env!("CARGO_PKG_VERSION"));
    crate::outln!("# {}", super::command_line());
    check_report_dir(&args)?;
    let mut results: Vec<ExperimentResult> = Vec::new();
    let mut failures = Vec::new();
    let files = experiment_files(&args.experiments)?;
    if !args.only.is_empty() {
        // An unknown name would silently give an empty report: refuse it before any work.
        let mut names = Vec::new();
        for path in &files {
            names.push(experiment::load(path)?.name);
        }
        let unknown: Vec<&String> = args.only.iter().filter(|n| !names.contains(n)).collect();
        if !unknown.is_empty() {
            bail!(
                "--only: no experiment named {} in {} (known: {})",
                unknown
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                args.experiments.display(),
                names.join(", ")
            );
        }
    }
    let loaded = files
        .iter()
        .map(|p| experiment::load(p).map(|f| (p.clone(), f)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let plays = |file: &experiment::ExperimentFile| {
        !args.no_play && (args.only.is_empty() || args.only.contains(&file.name))
    };
    if !args.no_play {
        print_plan(
            &args,
            &runs,
            loaded.iter().map(|(_, f)| f).filter(|f| plays(f)),
        )?;
    }
    for (path, file) in loaded {
        let opts = RunOptions {
            out: runs.clone(),
            quick: args.quick,
            jobs: args.jobs,
            show_progress: !args.quiet,
            play: plays(&file),
        };
        crate::errln!(
            "== {} ({})",
            file.fill(&file.title, args.quick),
            path.display()
        );
        let t = Instant::now();
        if plays(&file)
            && let Some(why) = missing_programs(&file, args.quick)
        {
            // An opponent that is not installed (GNU Go on a machine with only Rust) skips
            // its experiment, said in the report, instead of failing the whole run. An
            // experiment summarised from its recorded games (`--no-play`, `--only`) needs
            // no opponent.
            crate::errln!("-- {}: skipped: {why}", file.name);
            results.push(ExperimentResult {
                file: file.clone(),
                quick: args.quick,
                outcome: Outcome::Skipped(format!("skipped: {why}")),
                failed_arms: Vec::new(),
                seconds: 0.0,
            });
            continue;
        }
        let result = experiment::run(&file, &opts).unwrap_or_else(|e| {
            let why = format!("{e:#}");
            crate::errln!("!! {}: {why}", file.name);
            failures.push(file.name.clone());
            ExperimentResult {
                file: file.clone(),
                quick: args.quick,
                outcome: Outcome::Skipped(format!("failed: {why}")),
                failed_arms: Vec::new(),
                seconds: t.elapsed().as_secs_f64(),
            }
        });
        if !result.failed_arms.is_empty() && !failures.contains(&file.name) {
            failures.push(file.name.clone());
        }
        results.push(result);
    }
    let info = ReportInfo {
        quick: args.quick,
        command: std::env::args().collect::<Vec<_>>().join(" "),
        runs: relative_to(&runs, &args.out),
        runs_folder: runs.clone(),
        seconds: start.elapsed().as_secs_f64(),
        jobs: args.jobs,
        snapshot: args.no_play,
        machine: crate::arena::identity::machine_and_kernels(),
        played_only: if args.no_play {
            Vec::new()
        } else {
            args.only.clone()
        },
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    crate::util::output::mark_dir(&args.out, REPORT_KIND)
        .with_context(|| format!("marking {}", args.out.display()))?;
    let charts = crate::report::writer::ChartOptions {
        size: args.chart_size,
        format: args.chart_format,
        title: None,
    };
    let plots = write_plots(&results, &args.out, &charts);
    crate::report::writer::write_results(&results, &args.out)?;
    let mut text = render(&info, &results, &plots);
    text.push_str(&ratings_section(&runs, &args.out, &charts));
    let path = args.out.join("REPORT.md");
    crate::util::fsio::write_atomic(&path, text.as_bytes())?;
    crate::outln!("written: {} ({:.0} s)", path.display(), info.seconds);
    if !failures.is_empty() {
        bail!(
            "experiments failed (see {}): {}",
            path.display(),
            failures.join(", ")
        );
    }
    Ok(())
}

/// Prints what the run will play and how long that should take, from the seconds per game
/// recorded for the same players (in the results folder, else in the committed record).
fn print_plan<'a>(
    args: &ReproduceArgs,
    runs: &Path,
    files: impl Iterator<Item = &'a experiment::ExperimentFile>,
) -> anyhow::Result<()> {
    let record = Path::new(super::experiment::RECORD);
    let (mut seconds, mut unknown, mut remaining) = (0.0, 0, 0u32);
    for file in files {
        if file.kind != experiment::Kind::Match || (args.quick && file.quick.skip.is_some()) {
            continue;
        }
        let plans = experiment::plan_arms(file, args.quick, runs, record)?;
        crate::outln!(
            "{}",
            experiment::plan_text(&file.name, &plans, args.jobs).trim_end()
        );
        let (s, u) = experiment::plan_estimate(&plans, args.jobs);
        seconds += s;
        unknown += u;
        remaining += plans
            .iter()
            .map(experiment::ArmPlan::remaining)
            .sum::<u32>();
    }
    crate::outln!(
        "# plan: {remaining} games to play, {}{}{} with {} at once",
        if unknown > 0 { "at least " } else { "about " },
        experiment::human_seconds(seconds),
        if unknown > 0 {
            format!(" ({unknown} arm(s) without an estimate)")
        } else {
            String::new()
        },
        args.jobs
    );
    Ok(())
}

/// Why `file` cannot run here when one of its arms plays a GTP program that is not
/// installed (e.g. `gtp:gnugo ...` without GNU Go), else `None`. Arms skipped in this mode
/// are not asked about.
fn missing_programs(file: &experiment::ExperimentFile, quick: bool) -> Option<String> {
    if quick && file.quick.skip.is_some() {
        return None;
    }
    let arms = file.arms(quick).ok()?;
    let mut missing: Vec<String> = Vec::new();
    for arm in &arms {
        for spec in [&arm.config.black, &arm.config.white] {
            let spec = crate::arena::player_spec(spec);
            let Some(command) = spec.outside_command() else {
                continue;
            };
            let words = crate::arena::gtp::split_command_line(command).ok()?;
            let program = words.first()?;
            if crate::arena::gtp::find_program(program).is_none() && !missing.contains(program) {
                missing.push(program.clone());
            }
        }
    }
    if missing.is_empty() {
        return None;
    }
    let hint = if missing.iter().any(|p| p.ends_with("gnugo")) {
        " (GNU Go: `sh scripts/install-gnugo.sh`, i.e. `apt-get install gnugo`)"
    } else {
        ""
    };
    Some(format!(
        "needs {}, not found on PATH or in /usr/games{hint}",
        missing
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// `path` relative to `base` when it lies under it (links in the report), else as given.
/// `path` as seen from the folder `base` (`report/runs` from `report/full` is `../runs`),
/// for links in a report written to `base`. Both are made absolute against the working
/// folder first; when that fails, `path` is returned as given.
fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let (Ok(p), Ok(b)) = (std::path::absolute(path), std::path::absolute(base)) else {
        return path.to_path_buf();
    };
    let (p, b): (Vec<_>, Vec<_>) = (p.components().collect(), b.components().collect());
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut rel: PathBuf =
        std::iter::repeat_n(std::path::Component::ParentDir, b.len() - common).collect();
    rel.extend(&p[common..]);
    if rel.as_os_str().is_empty() {
        rel.push(".");
    }
    rel
}

/// The report's ratings section: `akushu rate` over the results folder and its chart
/// (`ratings.png` in `out`), or why there is none.
fn ratings_section(
    runs: &std::path::Path,
    out: &Path,
    charts: &crate::report::writer::ChartOptions,
) -> String {
    let body = match crate::arena::rating::rate(&[runs.to_path_buf()]) {
        Ok((results, ratings)) => {
            let mut body = crate::arena::rating::table(&ratings, &results);
            if let Some(mut chart) = crate::report::writer::ratings_chart(&ratings) {
                // At least the size its names need (the chart grows with the players).
                chart.size = (
                    chart.size.0.max(charts.size.0),
                    chart.size.1.max(charts.size.1),
                );
                let file = format!("ratings.{}", charts.format.extension());
                match crate::report::plot::render_chart(&chart, &out.join(&file)) {
                    Ok(()) => body.push_str(&format!("\n![ratings]({file})\n")),
                    Err(e) => crate::errln!("warning: ratings chart not drawn: {e}"),
                }
            }
            body
        }
        Err(e) => format!("No ratings: {e:#}\n"),
    };
    format!(
        "\n## Ratings\n\nEvery player of every match folder in `{}`, from `akushu rate {}`.\n\n{body}",
        runs.display(),
        runs.display()
    )
}

#[cfg(test)]
mod relative_tests {
    use super::relative_to;
    use std::path::{Path, PathBuf};

    #[test]
    fn links_resolve_from_the_report_folder() {
        let cases = [
            ("report/runs", "report/full", "../runs"),
            ("report/runs", "report", "runs"),
            ("runs", "report/full", "../../runs"),
            ("report", "report", "."),
        ];
        for (path, base, want) in cases {
            assert_eq!(
                relative_to(Path::new(path), Path::new(base)),
                PathBuf::from(want),
                "{path} from {base}"
            );
        }
    }
}
