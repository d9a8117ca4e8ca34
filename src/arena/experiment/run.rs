//! Running an experiment: each arm a match folder (or another experiment's, read not
//! replayed), the results so far, and what each arm came to.

use super::*;

/// One arm's outcome.
#[derive(Debug, Clone)]
pub struct ArmResult {
    pub arm: Arm,
    pub dir: PathBuf,
    pub summary: MatchSummary,
}

/// One curve's data: x values and one series per y column.
#[derive(Debug, Clone, Default)]
pub struct CurveData {
    pub csv: PathBuf,
    pub x: Vec<f64>,
    pub series: Vec<(String, Vec<f64>)>,
    /// Positions behind the curve, from the spec's summary CSV where it has one.
    pub positions: Option<u64>,
}

/// What running an experiment gave.
#[derive(Debug, Clone)]
pub enum Outcome {
    Arms(Vec<ArmResult>),
    Curve(CurveData),
    /// Not run, with the reason (skipped in quick mode, or failed).
    Skipped(String),
}

/// An experiment and its outcome.
#[derive(Debug, Clone)]
pub struct ExperimentResult {
    pub file: ExperimentFile,
    pub quick: bool,
    pub outcome: Outcome,
    /// Arms that could not be played: `(label, error)`. The other arms still ran.
    pub failed_arms: Vec<(String, String)>,
    pub seconds: f64,
}

/// Options for running experiments.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Folder under which each experiment gets `<name>/<arm>/`.
    pub out: PathBuf,
    pub quick: bool,
    pub jobs: usize,
    pub show_progress: bool,
    /// Play the missing games. When false, only the games already in the results folders
    /// are summarised (arms with none are left out) and curve commands are not run: a report
    /// of where long runs stand, written while they go on.
    pub play: bool,
}

/// Runs (or resumes) every arm of `file`.
pub fn run(file: &ExperimentFile, opts: &RunOptions) -> anyhow::Result<ExperimentResult> {
    let start = std::time::Instant::now();
    let mut failed_arms = Vec::new();
    let outcome = if let (true, Some(reason)) = (opts.quick, &file.quick.skip) {
        Outcome::Skipped(format!("skipped in quick mode: {reason}"))
    } else {
        match file.kind {
            Kind::Match => run_arms(file, opts, &mut failed_arms)?,
            Kind::Curve => run_curve(file, opts)?,
        }
    };
    Ok(ExperimentResult {
        file: file.clone(),
        quick: opts.quick,
        outcome,
        failed_arms,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Runs every arm; an arm that fails (a spec that does not build, an engine that will not
/// start) is recorded in `failed` and the next arm runs.
pub(super) fn run_arms(
    file: &ExperimentFile,
    opts: &RunOptions,
    failed: &mut Vec<(String, String)>,
) -> anyhow::Result<Outcome> {
    let mut results = Vec::new();
    for arm in file.arms(opts.quick)? {
        if let Some(other) = &arm.same_games_as {
            let dir = opts.out.join(other);
            match summary_of_folder(&dir) {
                Ok(Some(summary)) => {
                    crate::errln!(
                        "[{}] arm {}: the games of {} (not played twice): A wins {}",
                        file.name,
                        arm.label,
                        dir.display(),
                        summary.players[0].overall
                    );
                    results.push(ArmResult { arm, dir, summary });
                }
                Ok(None) => crate::errln!(
                    "[{}] arm {}: no games yet in {} (its own experiment plays them)",
                    file.name,
                    arm.label,
                    dir.display()
                ),
                Err(e) => failed.push((arm.label.clone(), format!("{e:#}"))),
            }
            continue;
        }
        let dir = opts.out.join(&file.name).join(slug(&arm.label));
        let config = MatchConfig {
            jobs: opts.jobs,
            ..arm.config.clone()
        };
        let summary = if opts.play {
            crate::errln!(
                "[{}] arm {}: {} vs {}, {} games -> {}",
                file.name,
                arm.label,
                config.black,
                config.white,
                config.games,
                dir.display()
            );
            run_match(&config, &dir, opts.show_progress).map(|o| Some(o.summary))
        } else {
            summary_so_far(&config, &dir)
        };
        let summary = match summary {
            Ok(Some(summary)) => summary,
            Ok(None) => {
                crate::errln!(
                    "[{}] arm {}: no games in {}",
                    file.name,
                    arm.label,
                    dir.display()
                );
                continue;
            }
            Err(e) => {
                crate::errln!("[{}] arm {} failed: {e:#}", file.name, arm.label);
                failed.push((arm.label.clone(), format!("{e:#}")));
                continue;
            }
        };
        crate::errln!(
            "[{}] arm {}: A ({}) wins {}",
            file.name,
            arm.label,
            config.black,
            summary.players[0].overall
        );
        results.push(ArmResult { arm, dir, summary });
    }
    Ok(Outcome::Arms(results))
}

/// The recorded games of one arm: how many, and their mean wall-clock seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub games: u32,
    pub seconds_per_game: f64,
    /// The `games.csv` they were read from.
    pub csv: PathBuf,
    /// The arm's sequential test (if it has one) has decided on these games: a run plays
    /// none of its other games.
    pub decided: bool,
}

/// The games of `dir/games.csv` played between the arm's two players (either colour: an
/// alternating match swaps them), with game numbers up to the arm's count. `None` when the
/// folder has no such game. Rows of other players are left out, so a folder written by an
/// earlier version of the arm (other simulations, other pruning) gives no estimate rather
/// than a wrong one.
pub fn recorded_games(config: &MatchConfig, dir: &Path) -> anyhow::Result<Option<Recorded>> {
    let csv = dir.join("games.csv");
    if !csv.is_file() {
        return Ok(None);
    }
    let players = |a: &str, b: &str| {
        (a == config.black && b == config.white) || (a == config.white && b == config.black)
    };
    let rows: BTreeMap<u32, _> = crate::arena::record::read_csv(&csv)?
        .into_iter()
        .filter(|r| r.game <= config.games && players(&r.black, &r.white))
        .map(|r| (r.game, r))
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let total: f64 = rows.values().map(|r| r.wall_seconds).sum();
    let decided = config.sprt_decided(&rows);
    Ok(Some(Recorded {
        games: rows.len() as u32,
        seconds_per_game: total / rows.len() as f64,
        csv,
        decided,
    }))
}

/// The games so far of a match folder another experiment plays, named by its own header.
pub(super) fn summary_of_folder(dir: &Path) -> anyhow::Result<Option<MatchSummary>> {
    let results = crate::arena::runner::ResultsDir::new(dir);
    match results.read_header()? {
        Some(header) => summary_so_far(&header.config, dir),
        None => Ok(None),
    }
}

/// The summary of the games already in an arm's folder (`None` when it has none), with the
/// arm's players as A and B. The folder's own header is not checked against the arm here:
/// resuming the match does that.
pub(super) fn summary_so_far(
    config: &MatchConfig,
    dir: &Path,
) -> anyhow::Result<Option<MatchSummary>> {
    let csv = dir.join("games.csv");
    if !csv.exists() {
        return Ok(None);
    }
    let rows = crate::arena::record::read_csv(&csv)?;
    if rows.is_empty() {
        return Ok(None);
    }
    Ok(Some(crate::arena::summary::summarize(
        &rows,
        [&config.black, &config.white],
    )))
}
