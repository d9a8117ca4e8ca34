//! `akushu analysis --engine SPEC`: KataGo's JSON analysis protocol on stdin/stdout (see
//! `gtp::json_analysis`), for GUIs such as KaTrain. Logs go to stderr.

use std::io::{BufRead, Write, stdin, stdout};

use clap::Args;

use crate::gtp::json_analysis::AnalysisServer;

#[derive(Debug, Clone, Args)]
pub struct AnalysisArgs {
    /// Engine spec (a uct or strong kind: they keep the scores and owners analysis reports).
    #[arg(long, default_value = "strong3")]
    pub engine: String,
    /// Seed of the engine's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(args: AnalysisArgs) -> anyhow::Result<()> {
    crate::errln!(
        "# akushu analysis --engine {} --seed {}: KataGo's JSON analysis protocol, 9x9, area rules",
        args.engine,
        args.seed
    );
    let mut server = AnalysisServer::new(&args.engine, args.seed)?;
    crate::errln!("Started, ready to begin handling requests");
    let mut out = stdout().lock();
    for line in stdin().lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({"error": format!("reading input: {e}")})
                )?;
                continue;
            }
        };
        for reply in server.handle_line(&line) {
            writeln!(out, "{reply}")?;
        }
        out.flush()?;
    }
    Ok(())
}
