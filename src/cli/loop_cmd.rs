//! `akushu loop CONFIG.toml --out DIR`: generations of self-play, training and gating (see
//! `src/selfplay_loop/mod.rs`).

use std::path::PathBuf;

use clap::Args;

use crate::selfplay_loop::{LoopConfig, LoopOptions, run_loop};

#[derive(Debug, Args)]
pub struct LoopArgs {
    /// The loop's config (TOML; `docs/selfplay.md` lists every key).
    pub config: PathBuf,
    /// The loop's folder; rerunning with the same folder resumes where it stopped.
    #[arg(long)]
    pub out: PathBuf,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: LoopArgs) -> anyhow::Result<()> {
    let config = LoopConfig::from_file(&args.config)?;
    // One loop per folder: two would train and gate the same generation side by side.
    let _lock = crate::util::commit::OutputLock::acquire(&args.out)?;
    crate::outln!(
        "# akushu loop {} --out {}",
        args.config.display(),
        args.out.display()
    );
    crate::outln!("{}", toml::to_string(&config)?);
    crate::outln!("gate: {}", config.gate.test()?.describe());
    let outcome = run_loop(
        &config,
        &args.out,
        &LoopOptions {
            progress: !args.quiet,
            stop_after_steps: None,
        },
    )?;
    for g in &outcome.state.generations {
        crate::outln!(
            "generation {}: gate {}/{} -> {}",
            g.index,
            g.gate_points,
            g.gate_games,
            if g.promoted { "promoted" } else { "kept" },
        );
    }
    crate::outln!(
        "best network: {}; summary (with ratings over every gate game) in {}",
        outcome.state.best(&config),
        args.out.join("summary.md").display()
    );
    Ok(())
}
