//! `akushu gtp --engine SPEC`: a GTP engine on stdin/stdout. The resolved configuration goes
//! to stderr (stdout belongs to the protocol); `--quiet` leaves stderr to errors alone.

use std::io::{BufReader, stdin, stdout};

use clap::Args;

use crate::gtp::GtpServer;
use crate::search::spec::{build_engine, resolved_config};

#[derive(Debug, Clone, Args)]
pub struct GtpArgs {
    /// Engine spec, e.g. `strong8:threads=2`, `uct:sims=10000,prune=rule:41@0` or
    /// `flat:sims=100000,c=0.4`. The default is the strongest engine, deterministic per seed
    /// (one thread). `--help` lists every engine kind and key.
    #[arg(long, default_value = "strong8", long_help = engine_long_help())]
    pub engine: String,
    /// Seed of the engine's random choices (same seed + one thread = same game).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print nothing but GTP responses: no header, configuration or per-genmove statistics
    /// on stderr (errors still go there).
    #[arg(long)]
    pub quiet: bool,
    /// Ponder: after each move it plays, search the opponent's replies until the next
    /// command arrives (any command stops it); the next `genmove` starts from that tree.
    #[arg(long)]
    pub ponder: bool,
}

/// The `--engine` help of `--help`: the key tables of every engine kind.
fn engine_long_help() -> String {
    format!(
        "Engine spec, e.g. `uct:sims=10000,prune=rule:41@0` or `flat:sims=100000,c=0.4`.\n\n{}",
        crate::search::spec::key_list_text()
    )
}

pub fn run(args: GtpArgs) -> anyhow::Result<()> {
    let config = resolved_config(&args.engine)?;
    if !args.quiet {
        crate::errln!("# akushu gtp --engine {} --seed {}", args.engine, args.seed);
        // The resolved config on one line: GUIs show stderr in a log window.
        let one_line: serde_json::Value = serde_json::from_str(&config)?;
        crate::errln!("# {one_line}");
    }
    let engine = build_engine(&args.engine, args.seed)?;
    let mut server = GtpServer::new(engine)
        .with_log(!args.quiet)
        .with_ponder(args.ponder);
    server.run_detached(BufReader::new(stdin()), stdout().lock())?;
    Ok(())
}
