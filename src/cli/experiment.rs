//! `akushu experiment run FILE [--quick]`: runs one experiment file (every arm is a
//! resumable match folder) and writes its section of the report next to the results.
//! `akushu experiment plan FILE [--slurm] [--parallel]` prints the arms' matches and writes
//! the scripts that play them as shards on a cluster.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::arena::cluster::{ClusterPlan, SlurmOptions};
use crate::arena::experiment::{self, RunOptions};
use crate::report::writer::{ReportInfo, render, write_plots};

#[derive(Debug, Subcommand)]
pub enum ExperimentCommand {
    /// Run (or resume) one experiment file.
    #[command(after_help = "\
Examples:
  akushu experiment run experiments/tree_pruning.toml --quick   # into runs/experiments-quick
  akushu experiment run experiments/tree_pruning.toml --out report/runs   # extend the record
  akushu experiment run experiments/tree_pruning.toml --no-play --out report/runs
  akushu experiment run experiments/random_pruning.toml --no-play --out report/runs \\
      --chart-format svg --chart-size 1200x800 --chart-title \"Random pruning\"   # redraw")]
    Run(ExperimentArgs),
    /// Print the matches an experiment file would play, without playing them; with
    /// --slurm / --parallel, write the scripts that play them as shards on a cluster.
    #[command(after_help = "\
Examples:
  akushu experiment plan experiments/tree_pruning.toml          # the matches, ready to paste
  akushu experiment plan experiments/tree_pruning.toml --slurm --shards 16 --out report/runs
  akushu experiment plan experiments/soft_pruning.toml --parallel --quick")]
    Plan(PlanArgs),
}

#[derive(Debug, Clone, Args)]
pub struct PlanArgs {
    /// The experiment file (`experiments/tree_pruning.toml`).
    pub file: PathBuf,
    /// Use the file's `[quick]` overrides (few games, few simulations).
    #[arg(long)]
    pub quick: bool,
    /// Folder the scripts write results to (default `runs/experiments`, or
    /// `runs/experiments-quick`: scratch folders git ignores). `--out report/runs` extends the
    /// committed record.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write a Slurm array job per arm (`shards-ARM.sbatch`), the merge job (`merge.sh`) and
    /// `submit-slurm.sh`, which submits them with the merge depending on the arrays.
    #[arg(long)]
    pub slurm: bool,
    /// Write GNU parallel's task list (`parallel-tasks.txt`), `parallel.sh` and `merge.sh`.
    #[arg(long)]
    pub parallel: bool,
    /// Folder for the scripts and the jobs' logs (default `OUT/NAME/cluster`).
    #[arg(long)]
    pub scripts: Option<PathBuf>,
    /// Shards per arm (array tasks per arm); by default 16, or the games of the smallest arm
    /// when it has fewer (so `--quick` plans work as they are).
    #[arg(long)]
    pub shards: Option<u32>,
    /// Slurm partition; repeat for several (the job runs in the first that has room).
    #[arg(long)]
    pub partition: Vec<String>,
    /// CPUs per Slurm task: each shard plays that many games at once.
    #[arg(long, default_value_t = 1)]
    pub cpus_per_task: u32,
    /// Time limit per Slurm task (`HH:MM:SS` or `D-HH:MM:SS`).
    #[arg(long, default_value = "24:00:00")]
    pub time: String,
    /// A further #SBATCH option for every job (`--sbatch=--account=go`); repeatable.
    #[arg(long = "sbatch", allow_hyphen_values = true)]
    pub sbatch: Vec<String>,
    /// The akushu binary the jobs run (default: this one).
    #[arg(long)]
    pub akushu: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct ExperimentArgs {
    /// The experiment file (`experiments/tree_pruning.toml`).
    pub file: PathBuf,
    /// Use the file's `[quick]` overrides (few games, few simulations).
    #[arg(long)]
    pub quick: bool,
    /// Folder for the match results (default `runs/experiments`, or `runs/experiments-quick`:
    /// scratch folders git ignores). `--out report/runs` extends the committed record: its
    /// match folders resume, and the games added are played by this build.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Games played at once.
    #[arg(long, default_value_t = default_jobs(), value_parser = crate::util::num::jobs_arg)]
    pub jobs: usize,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
    /// Play nothing: write the report from the games already in the results folders (where
    /// long runs stand, even while they go on). With the chart options, this redraws an
    /// experiment's chart from its folder.
    #[arg(long)]
    pub no_play: bool,
    /// Chart size in pixels, `WIDTHxHEIGHT`.
    #[arg(long, default_value = "900x600", value_parser = crate::report::plot::parse_size)]
    pub chart_size: (u32, u32),
    /// Chart file format (`OUT/NAME/NAME.png` or `.svg`).
    #[arg(long, value_enum, default_value = "png")]
    pub chart_format: crate::report::writer::ChartFormat,
    /// Chart title (default: the experiment's title).
    #[arg(long)]
    pub chart_title: Option<String>,
}

/// Writes `text` to standard output. A reader that closes the pipe early (`| head`) is
/// not an error: the plan is meant to be skimmed that way.
fn print_to_pipe(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing to standard output"),
    }
}

/// An absolute form of `path` (relative to the working directory), without requiring it
/// to exist yet: the scripts run elsewhere, so every path in them is absolute.
fn absolute(path: &std::path::Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("resolving {}", path.display()))
}

/// `experiment plan --slurm/--parallel`: writes the cluster scripts and says how to run them.
fn write_cluster_scripts(args: &PlanArgs, file: &experiment::ExperimentFile) -> anyhow::Result<()> {
    let runs = absolute(
        &args
            .out
            .clone()
            .unwrap_or_else(|| default_experiment_out(args.quick)),
    )?;
    let scripts = match &args.scripts {
        Some(dir) => absolute(dir)?,
        None => runs.join(&file.name).join("cluster"),
    };
    let akushu = match &args.akushu {
        Some(path) => absolute(path)?,
        None => std::env::current_exe().context("finding this program's path")?,
    };
    // Arms that read another experiment's games are played by that experiment's scripts.
    let arms: Vec<_> = file
        .arms(args.quick)?
        .into_iter()
        .filter(|a| a.same_games_as.is_none())
        .collect();
    if arms.is_empty() {
        anyhow::bail!(
            "{}: nothing to play: every arm reads the games of another experiment \
             (same_games_as); plan that one",
            args.file.display()
        );
    }
    let fewest = arms.iter().map(|a| a.config.games).min().unwrap_or(1);
    let plan = ClusterPlan {
        experiment: absolute(&args.file)?,
        name: file.name.clone(),
        quick: args.quick,
        shards: args.shards.unwrap_or(DEFAULT_SHARDS.min(fewest.max(1))),
        arms,
        runs,
        akushu,
        workdir: absolute(std::path::Path::new("."))?,
        scripts: scripts.clone(),
        slurm: SlurmOptions {
            partitions: args.partition.clone(),
            cpus_per_task: args.cpus_per_task,
            time: args.time.clone(),
            extra: args.sbatch.clone(),
        },
    };
    let written = plan
        .write(args.slurm, args.parallel)
        .with_context(|| format!("experiment plan {}", args.file.display()))?;
    for path in &written {
        crate::outln!("written: {}", path.display());
    }
    if args.slurm {
        crate::outln!(
            "Slurm: sh {}/submit-slurm.sh  (one shard again: sbatch --array=I {}/shards-ARM.sbatch; then sbatch or sh {}/merge.sh)",
            scripts.display(),
            scripts.display(),
            scripts.display()
        );
    }
    if args.parallel {
        crate::outln!(
            "GNU parallel: sh {}/parallel.sh  (rerun to resume)",
            scripts.display()
        );
    }
    Ok(())
}

/// All cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The committed record of the paper-settings runs; `experiment run` times its arms from it.
pub(crate) const RECORD: &str = "report/runs";

/// The default results folder of `experiment run` and `experiment plan`: a scratch folder
/// git ignores, so that trying an experiment never adds games to the committed record.
pub fn default_experiment_out(quick: bool) -> PathBuf {
    PathBuf::from(if quick {
        "runs/experiments-quick"
    } else {
        "runs/experiments"
    })
}

/// The default results folder of `reproduce` (relative to its report folder's parent).
pub fn default_runs(quick: bool) -> PathBuf {
    PathBuf::from(if quick {
        "report/runs-quick"
    } else {
        "report/runs"
    })
}

/// Shards per arm when `--shards` is not given (fewer when an arm has fewer games).
const DEFAULT_SHARDS: u32 = 16;

pub fn run(cmd: ExperimentCommand) -> anyhow::Result<()> {
    match cmd {
        ExperimentCommand::Plan(args) => {
            let file = experiment::load(&args.file)?;
            let runs = args
                .out
                .clone()
                .unwrap_or_else(|| default_experiment_out(args.quick));
            let mut text = format!(
                "# {} ({})\n",
                file.fill(&file.title, args.quick),
                args.file.display()
            );
            for arm in file.arms(args.quick)? {
                if let Some(other) = &arm.same_games_as {
                    text += &format!(
                        "[{}]\n# the games of {}: played by that experiment, not twice\n",
                        arm.label,
                        runs.join(other).display()
                    );
                    continue;
                }
                // The command that plays (or resumes) this arm by hand, into the folder
                // `experiment run` uses.
                let dir = runs
                    .join(&file.name)
                    .join(crate::arena::experiment::slug(&arm.label));
                let words: Vec<String> = crate::arena::cluster::match_args(&arm.config)
                    .iter()
                    .map(|a| crate::arena::cluster::shell_quote(a))
                    .collect();
                text += &format!(
                    "[{}]\n# play: akushu match {} --jobs {} --out {}\n{}\n",
                    arm.label,
                    words.join(" "),
                    arm.config.jobs,
                    crate::arena::cluster::shell_quote(&dir.display().to_string()),
                    toml::to_string(&arm.config)?
                );
            }
            print_to_pipe(&text)?;
            if args.slurm || args.parallel {
                write_cluster_scripts(&args, &file)?;
            }
            Ok(())
        }
        ExperimentCommand::Run(args) => {
            let file = experiment::load(&args.file)?;
            let out = args
                .out
                .clone()
                .unwrap_or_else(|| default_experiment_out(args.quick));
            crate::outln!(
                "# akushu experiment run {} (akushu {})",
                args.file.display(),
                env!("CARGO_PKG_VERSION")
            );
            // One line, not the whole file: the file is on disk, and every arm's folder
            // records its resolved match config in `match.toml`.
            crate::outln!(
                "# {}{}; results in {}",
                file.fill(&file.title, args.quick),
                if args.quick { " (quick)" } else { "" },
                out.display()
            );
            // One run per experiment folder (`OUT/NAME`); other experiments may share `OUT`.
            let _lock = crate::util::commit::OutputLock::acquire(&out.join(&file.name))?;
            let skipped = args.quick && file.quick.skip.is_some();
            if !args.no_play && !skipped && file.kind == experiment::Kind::Match {
                let plans =
                    experiment::plan_arms(&file, args.quick, &out, std::path::Path::new(RECORD))?;
                crate::outln!("{}", experiment::plan_text(&file.name, &plans, args.jobs));
            }
            let opts = RunOptions {
                out: out.clone(),
                quick: args.quick,
                jobs: args.jobs,
                show_progress: !args.quiet,
                play: !args.no_play,
            };
            let result = experiment::run(&file, &opts)?;
            let info = ReportInfo {
                played_only: Vec::new(),
                quick: args.quick,
                command: std::env::args().collect::<Vec<_>>().join(" "),
                runs: PathBuf::from(".."),
                runs_folder: out.clone(),
                seconds: result.seconds,
                jobs: args.jobs,
                snapshot: args.no_play,
                machine: crate::arena::identity::machine_and_kernels(),
            };
            let dir = out.join(&file.name);
            let charts = crate::report::writer::ChartOptions {
                size: args.chart_size,
                format: args.chart_format,
                title: args.chart_title.clone(),
            };
            let plots = write_plots(std::slice::from_ref(&result), &dir, &charts);
            crate::report::writer::write_results(std::slice::from_ref(&result), &dir)?;
            let text = render(&info, std::slice::from_ref(&result), &plots);
            let path = dir.join("report.md");
            let kind = crate::util::output::FileKind {
                name: "akushu report",
                signature: b"# akushu reproduction report\n",
                mark: None,
            };
            crate::util::output::write_file(
                &path,
                kind,
                false,
                std::slice::from_ref(&args.file),
                |w| w.write_all(text.as_bytes()),
            )?;
            crate::outln!("{text}");
            crate::outln!("written: {}", path.display());
            if !result.failed_arms.is_empty() {
                anyhow::bail!(
                    "{} arm(s) failed (see {})",
                    result.failed_arms.len(),
                    path.display()
                );
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::arena::cluster::match_args;
    use crate::arena::{GtpTimeouts, MatchConfig};
    use crate::cli::{Cli, Command};

    /// The options the cluster scripts give `akushu match` parse back to the arm's config.
    #[test]
    fn shard_command_options_parse_back_to_the_arm() {
        let arm = MatchConfig {
            black: "uct:sims=20,prune=nn:41@0".into(),
            white: "gtp:gnugo --mode gtp --level 10".into(),
            games: 12,
            seed: 77,
            komi: 7.25,
            alternate: true,
            max_moves: 150,
            timeouts: GtpTimeouts {
                genmove_s: 2.5,
                command_s: 3.0,
            },
            jobs: 1,
            shard: None,
            time: Some(crate::arena::TimeSpec::per_move(0.5)),
            sprt: None,
            openings: None,
            pairs: false,
        };
        for alternate in [true, false] {
            let arm = MatchConfig {
                alternate,
                ..arm.clone()
            };
            let mut argv = vec![
                "akushu".to_string(),
                "match".into(),
                "--jobs".into(),
                "1".into(),
                "--out".into(),
                "runs/arm".into(),
            ];
            argv.extend(match_args(&arm));
            let Command::Match(cmd) = Cli::try_parse_from(&argv).unwrap().command else {
                panic!("not a match command: {argv:?}");
            };
            assert_eq!(cmd.run.config().unwrap(), arm);
        }
    }
}
