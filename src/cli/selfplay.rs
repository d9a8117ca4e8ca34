//! `akushu selfplay`: an engine plays itself and writes training records with the search's
//! visits, value and each game's outcome and ownership (see `src/arena/selfplay.rs`).

use std::path::PathBuf;

use clap::Args;

use crate::arena::Shard;
use crate::arena::selfplay::GameRules;
use crate::arena::selfplay_run::{MAX_GAMES, SelfplayConfig, run_selfplay};

#[derive(Debug, Args)]
pub struct SelfplayArgs {
    /// Engine spec (a uct: spec or a preset); repeat for a pool that plays round robin.
    #[arg(long = "engine", required = true, value_name = "SPEC")]
    pub engines: Vec<String>,
    /// Games in the whole run (all shards together; at most 1,000,000).
    #[arg(long, default_value_t = 100, value_parser = games_arg)]
    pub games: u32,
    /// Run seed (each game's seed is derived from it and logged in games.csv).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output folder; rerunning with the same folder resumes.
    #[arg(long)]
    pub out: PathBuf,
    /// How each game is played.
    #[command(flatten)]
    pub rules: GameRules,
    /// Games played at once (default: all cores). Results do not depend on it.
    #[arg(long, default_value_t = super::experiment::default_jobs(), value_parser = crate::util::num::jobs_arg)]
    pub jobs: usize,
    /// Play only share i of n (0-based): games g with (g-1) % n == i. `dataset build
    /// --selfplay` takes the shard folders together.
    #[arg(long)]
    pub shard: Option<Shard>,
    /// Write cluster scripts into this folder instead of playing: a Slurm array job
    /// (`selfplay.sbatch`) and GNU parallel's tasks (`parallel.sh`), shard i playing into
    /// `OUT/shard-i`.
    #[arg(long, value_name = "DIR", conflicts_with = "shard")]
    pub plan: Option<PathBuf>,
    #[command(flatten)]
    pub cluster: PlanArgs,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// clap parser for `--games`.
fn games_arg(text: &str) -> Result<u32, String> {
    crate::util::num::parse_in("games", text, 1, MAX_GAMES)
}

impl SelfplayArgs {
    /// The resolved run configuration.
    pub fn config(&self) -> SelfplayConfig {
        SelfplayConfig {
            engines: self.engines.clone(),
            games: self.games,
            seed: self.seed,
            rules: self.rules,
            jobs: self.jobs,
            shard: self.shard,
        }
    }
}

/// The options of a sharded job's cluster scripts (`--plan DIR`), shared by `selfplay` and
/// `dataset label`.
#[derive(Debug, Clone, clap::Args)]
pub struct PlanArgs {
    /// With --plan: shards (at most the job's games or chunks).
    #[arg(long, default_value_t = 16, requires = "plan")]
    pub shards: u32,
    /// With --plan: Slurm partition; repeat for several.
    #[arg(long, requires = "plan")]
    pub partition: Vec<String>,
    /// With --plan: CPUs per Slurm task (self-play: the games a shard plays at once;
    /// labelling: give the teacher's threads).
    #[arg(long, default_value_t = 1, requires = "plan")]
    pub cpus_per_task: u32,
    /// With --plan: time limit per Slurm task.
    #[arg(long, default_value = "24:00:00", requires = "plan")]
    pub time: String,
}

impl PlanArgs {
    /// The Slurm options these give.
    pub fn slurm(&self) -> crate::arena::cluster::SlurmOptions {
        crate::arena::cluster::SlurmOptions {
            partitions: self.partition.clone(),
            cpus_per_task: self.cpus_per_task,
            time: self.time.clone(),
            extra: Vec::new(),
        }
    }
}

/// `--plan DIR`: writes the cluster scripts and says how to run them.
fn write_plan(args: &SelfplayArgs, dir: &std::path::Path) -> anyhow::Result<()> {
    use crate::arena::cluster::{ShardPlan, selfplay_plan_args};
    let config = args.config();
    config.validate()?;
    let (out, shards) = (absolute(&args.out)?, args.cluster.shards.min(args.games));
    let plan = ShardPlan {
        name: "selfplay",
        args: selfplay_plan_args(&config),
        jobs: true,
        what: format!(
            "Self-play: {} games in {shards} shards; task i plays the games g with\n\
             # (g - 1) % {shards} == i into {}/shard-i. Written by `akushu selfplay --plan`.",
            config.games,
            out.display()
        ),
        then: format!(
            "akushu dataset build --selfplay {}/shard-* --out DATA",
            out.display()
        ),
        shards,
        out,
        akushu: current_exe()?,
        workdir: absolute(std::path::Path::new("."))?,
        scripts: absolute(dir)?,
        slurm: args.cluster.slurm(),
    };
    plan.write_and_say(config.games)
}

/// `p` made absolute (scripts run from anywhere).
pub(crate) fn absolute(p: &std::path::Path) -> anyhow::Result<std::path::PathBuf> {
    use anyhow::Context;
    std::path::absolute(p).with_context(|| format!("resolving {}", p.display()))
}

/// This program's path, for the scripts.
pub(crate) fn current_exe() -> anyhow::Result<std::path::PathBuf> {
    use anyhow::Context;
    std::env::current_exe().context("finding this program's path")
}

pub fn run(args: SelfplayArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.plan {
        return write_plan(&args, dir);
    }
    let config = args.config();
    // Checked before the lock, which creates the folder's parent: a refused command leaves
    // nothing behind.
    config.validate()?;
    if !crate::arena::selfplay_run::SelfplayDir::new(&args.out)
        .header()
        .exists()
    {
        crate::arena::selfplay_run::check_engines(&config)?;
    }
    // One writer per self-play folder (a second would play the same games again).
    let _lock = crate::util::commit::OutputLock::acquire(&args.out)?;
    crate::outln!("# akushu selfplay --out {}", args.out.display());
    crate::outln!("{}", toml::to_string(&config)?);
    let started = std::time::Instant::now();
    let outcome = run_selfplay(&config, &args.out, !args.quiet)?;
    let positions: u64 = outcome.rows.iter().map(|r| r.positions as u64).sum();
    let black = outcome
        .rows
        .iter()
        .filter(|r| r.winner == crate::arena::game::Winner::Black)
        .count();
    crate::outln!(
        "games finished: {} ({} played now in {:.1} s); positions: {positions}; black won {black}",
        outcome.rows.len(),
        outcome.played_now,
        started.elapsed().as_secs_f64()
    );
    crate::outln!("wrote {}", args.out.display());
    Ok(())
}
