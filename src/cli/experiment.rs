//! `akushu experiment run FILE [--quick]`: runs one experiment file (every arm is a
//! resumable match folder) and writes its section of the report next to the results.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::arena::experiment::{self, RunOptions};
use crate::report::writer::{ReportInfo, render, write_plots};

#[derive(Debug, Subcommand)]
pub enum ExperimentCommand {
    /// Run (or resume) one experiment file.
    Run(ExperimentArgs),
    /// Print the matches an experiment file would play, without playing them.
    Plan(ExperimentArgs),
}

#[derive(Debug, Clone, Args)]
pub struct ExperimentArgs {
    /// The experiment file (`experiments/tree_pruning.toml`).
    pub file: PathBuf,
    /// Use the file's `[quick]` overrides (few games, few simulations).
    #[arg(long)]
    pub quick: bool,
    /// Folder for the match results (default `report/runs`, or `report/runs-quick`).
    #[arg(long)]
    pub out: Option<PathBuf>,
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

/// All cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The default results folder for a mode.
pub fn default_runs(quick: bool) -> PathBuf {
    PathBuf::from(if quick {
        "report/runs-quick"
    } else {
        "report/runs"
    })
}

pub fn run(cmd: ExperimentCommand) -> anyhow::Result<()> {
    match cmd {
        ExperimentCommand::Plan(args) => {
            let file = experiment::load(&args.file)?;
            let mut text = format!("# {} ({})\n", file.title, args.file.display());
            for arm in file.arms(args.quick)? {
                text += &format!("[{}]\n{}\n", arm.label, toml::to_string(&arm.config)?);
            }
            print_to_pipe(&text)
        }
        ExperimentCommand::Run(args) => {
            let file = experiment::load(&args.file)?;
            let out = args.out.clone().unwrap_or_else(|| default_runs(args.quick));
            crate::outln!(
                "# akushu experiment run {} (akushu {})",
                args.file.display(),
                env!("CARGO_PKG_VERSION")
            );
            crate::outln!("{}", toml::to_string(&file)?);
            let opts = RunOptions {
                out: out.clone(),
                quick: args.quick,
                jobs: args.jobs,
                show_progress: !args.quiet,
                play: !args.no_play,
            };
            let result = experiment::run(&file, &opts)?;
            let info = ReportInfo {
                quick: args.quick,
                command: std::env::args().collect::<Vec<_>>().join(" "),
                runs: PathBuf::from(".."),
                seconds: result.seconds,
                jobs: args.jobs,
                snapshot: args.no_play,
            };
            let dir = out.join(&file.name);
            let plots = write_plots(std::slice::from_ref(&result), &dir);
            let text = render(&info, std::slice::from_ref(&result), &plots);
            let path = dir.join("report.md");
            let kind = crate::util::output::FileKind {
                name: "akushu report",
                signature: b"# akushu reproduction report\n",
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
