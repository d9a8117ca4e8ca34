//! The `akushu` command line: one file per subcommand, this file only parses and dispatches.
//! Every subcommand prints its resolved configuration (seed included) before it starts.

use clap::{Parser, Subcommand};

pub mod bench;
pub mod experiment;
pub mod gtp;
pub mod match_cmd;
pub mod reproduce;

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
    /// Play a match between two engines (in-process specs or `gtp:` commands); `match merge`
    /// combines shard folders.
    Match(match_cmd::MatchCommand),
    /// Play Go over GTP on stdin/stdout with an engine spec.
    Gtp(gtp::GtpArgs),
    /// Run the paper's experiments from `experiments/*.toml` files.
    #[command(subcommand)]
    Experiment(experiment::ExperimentCommand),
    /// Run every experiment and write report/REPORT.md (`--quick`: a ten-minute check).
    Reproduce(reproduce::ReproduceArgs),
}

/// Parses the command line and runs the subcommand.
pub fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Bench(cmd) => bench::run(cmd),
        Command::Match(cmd) => match_cmd::run(cmd),
        Command::Gtp(args) => gtp::run(args),
        Command::Experiment(cmd) => experiment::run(cmd),
        Command::Reproduce(args) => reproduce::run(args),
    }
}
