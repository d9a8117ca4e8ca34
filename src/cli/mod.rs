//! The `akushu` command line: one file per subcommand, this file only parses and dispatches.
//! Every subcommand prints its resolved configuration (seed included) before it starts.

use clap::{Parser, Subcommand};

pub mod analyze;
pub mod bench;
pub mod dataset;
pub mod eval;
pub mod experiment;
pub mod gtp;
pub mod match_cmd;
pub mod reproduce;
pub mod train;
pub mod yose;

/// akushu: learn bad moves in 9x9 Go and prune Monte-Carlo search with them.
#[derive(Debug, Parser)]
#[command(name = "akushu", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Speed measurements (playouts, ...).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Game records to training data: build, stats, show.
    #[command(subcommand)]
    Dataset(dataset::DatasetCommand),
    /// Play Go over GTP on stdin/stdout with an engine spec.
    Gtp(gtp::GtpArgs),
    /// Board analysis of an SGF position: chains, groups, territory, kake-me marks.
    Analyze(analyze::AnalyzeArgs),
    /// Exact endgame solver (`yose FILE`) and its benchmark (`yose bench DIR`).
    Yose(yose::YoseArgs),
    /// Train a bad-move network (mlp: the paper's; cnn: ours) into a model directory.
    Train(train::TrainArgs),
    /// Error-rate curve, top-k and baselines of a model on a dataset split.
    Eval(eval::EvalArgs),
    /// Play a match between two engines (in-process specs or `gtp:` commands); `match merge`
    /// combines shard folders.
    Match(match_cmd::MatchCommand),
    /// Run the paper's experiments from `experiments/*.toml` files.
    #[command(subcommand)]
    Experiment(experiment::ExperimentCommand),
    /// Run every experiment and write report/REPORT.md (`--quick`: a short check of the whole pipeline).
    Reproduce(reproduce::ReproduceArgs),
}

/// Parses the command line and runs the subcommand.
pub fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Bench(cmd) => bench::run(cmd),
        Command::Dataset(cmd) => dataset::run(cmd),
        Command::Gtp(args) => gtp::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Yose(args) => yose::run(args),
        Command::Train(args) => train::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Match(cmd) => match_cmd::run(cmd),
        Command::Experiment(cmd) => experiment::run(cmd),
        Command::Reproduce(args) => reproduce::run(args),
    }
}
