//! `akushu gtp --engine SPEC`: a GTP engine on stdin/stdout. The resolved configuration goes
//! to stderr (stdout belongs to the protocol); `--quiet` leaves stderr to errors alone. Input
//! that ends without `quit`, a closed stdout or a dead parent ends the search at once: the
//! controller is gone.

use std::io::{BufReader, stdin, stdout};

use clap::Args;

use crate::gtp::GtpServer;
use crate::search::spec::{DEFAULT_ENGINE, build_engine, resolved_config};

#[derive(Debug, Clone, Args)]
pub struct GtpArgs {
    /// Engine spec, e.g. `strong8:threads=2`, `uct:sims=10000,prune=rule:41@0` or
    /// `flat:sims=100000,c=0.4`. The default is the strongest engine, deterministic per seed
    /// (one thread). `--help` lists every engine kind and key.
    #[arg(long, default_value = DEFAULT_ENGINE, long_help = engine_long_help())]
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
    /// Seconds a move's search takes at most while the controller has sent no time settings
    /// (`time_settings`, `kgs-time_settings`), beside the engine's own visit budget: the
    /// default engine's 50,000 visits take about 50 s on one core, more than a GUI user
    /// waits, so 10 s, as KataGo's example GTP config caps a move (`maxTime = 10`). Once the
    /// controller sends time settings, its clock rules instead. 0 = no cap.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_MOVE_CAP, value_parser = cap_arg)]
    pub move_cap: f64,
}

/// The default `--move-cap`, in seconds.
pub const DEFAULT_MOVE_CAP: f64 = 10.0;

/// `--move-cap`: seconds, 0 (no cap) allowed.
fn cap_arg(text: &str) -> Result<f64, String> {
    crate::util::num::parse_in("seconds", text, 0.0, crate::util::num::MAX_SECONDS)
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
        .with_ponder(args.ponder)
        .with_move_cap((args.move_cap > 0.0).then_some(args.move_cap))
        .with_stop_at_eof(true);
    // A controller that is gone (its input closed, its end of stdout closed, the process
    // that started us killed) stops the search at once rather than at its end.
    crate::util::stdout::watch_reader_gone(server.stop_flag());
    crate::util::exit_with_parent();
    server.run_detached(BufReader::new(stdin()), stdout().lock())?;
    Ok(())
}
