//! `akushu bench ...`: speed measurements printed as figures anyone can rerun.

use std::time::{Duration, Instant};

use clap::{Args, Subcommand};

use crate::playout::{self, PlayoutConfig, Uniform};
use crate::rules::{Board, Color};
use crate::util::rng::FastRng;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Uniform random playouts from the empty board: playouts/s, moves per playout, black's
    /// win share at komi 6.5.
    Playouts(PlayoutBenchArgs),
    /// UCT search speed from the empty board: simulations/s and seconds per move for the
    /// unpruned engine, tree pruning, soft pruning and each playout-pruning mode; writes a CSV.
    Search(SearchBenchArgs),
}

#[derive(Debug, Clone, Args)]
pub struct SearchBenchArgs {
    /// Simulations per move.
    #[arg(long, default_value_t = 10_000)]
    pub sims: u32,
    /// Moves of self-play per engine, from the empty board.
    #[arg(long, default_value_t = 8)]
    pub moves: usize,
    /// Pruner used by the pruned variants (`rule`, `random`, `nn` once available).
    #[arg(long, default_value = "rule")]
    pub pruner: String,
    /// Engine specs to measure instead of the default set (repeat the flag); `{sims}` and
    /// `{pruner}` are substituted.
    #[arg(long)]
    pub engine: Vec<String>,
    /// Engine seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// CSV output file.
    #[arg(long, default_value = "runs/bench-search.csv")]
    pub out: std::path::PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct PlayoutBenchArgs {
    /// Worker threads, each running its own playouts.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// How long to run.
    #[arg(long, default_value_t = 5.0)]
    pub seconds: f64,
    /// Seed; thread `t` uses stream `t` of it.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Komi for the win share.
    #[arg(long, default_value_t = 6.5)]
    pub komi: f32,
}

pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Playouts(args) => {
            println!("# akushu bench playouts {args:?}");
            let report = playout_bench(&args);
            print!("{report}");
            Ok(())
        }
        BenchCommand::Search(args) => search_bench(&args),
    }
}

/// The engines `bench search` measures by default; the first is the baseline of the ratios.
pub const DEFAULT_SEARCH_ENGINES: &[&str] = &[
    "uct:sims={sims}",
    "uct:sims={sims},prune={pruner}:41@0",
    "uct:sims={sims},soft={pruner}:20:41@0",
    "uct:sims={sims},playout_prune={pruner}:0.6,playout_eval=leaf",
    "uct:sims={sims},playout_prune={pruner}:0.6,playout_eval=move",
];

/// One row of the search benchmark CSV.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SearchBenchRow {
    pub engine: String,
    pub moves: usize,
    pub simulations: u64,
    pub seconds: f64,
    pub sims_per_s: f64,
    pub s_per_move: f64,
    /// Seconds per move relative to the first engine.
    pub time_ratio: f64,
    /// On-CPU seconds per move of the benchmarking thread (Linux schedstat; empty elsewhere,
    /// and an undercount for `threads>1`): unlike wall time, barely affected by other jobs
    /// sharing the machine.
    pub cpu_s_per_move: Option<f64>,
    pub pruner_evals: u64,
    pub cache_hits: u64,
}

/// On-CPU time of the calling thread in seconds, from `/proc/thread-self/schedstat` (Linux);
/// `None` where that file does not exist.
pub fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

/// Self-plays `args.moves` moves with each engine and writes the table.
pub fn search_bench(args: &SearchBenchArgs) -> anyhow::Result<()> {
    use crate::search::spec::{parse_uct, resolved_config};
    use crate::search::uct::UctEngine;
    use crate::search::{Engine, EngineMove};
    println!("# akushu bench search {args:?}");
    let specs: Vec<String> = if args.engine.is_empty() {
        DEFAULT_SEARCH_ENGINES
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        args.engine.clone()
    };
    let specs: Vec<String> = specs
        .iter()
        .map(|s| {
            s.replace("{sims}", &args.sims.to_string())
                .replace("{pruner}", &args.pruner)
        })
        .collect();
    for s in &specs {
        println!("# {s}\n{}", resolved_config(s)?);
    }
    let bar = indicatif::ProgressBar::new((specs.len() * args.moves) as u64);
    let mut rows: Vec<SearchBenchRow> = Vec::new();
    for spec in &specs {
        let mut engine = UctEngine::new(parse_uct(spec)?, args.seed)?.with_name(spec.as_str());
        engine.new_game(6.5);
        let (mut sims, mut secs, mut moves) = (0u64, 0f64, 0usize);
        let cpu0 = thread_cpu_seconds();
        let mut color = Color::Black;
        for _ in 0..args.moves {
            let (m, st) = engine.genmove(color);
            sims += st.simulations;
            secs += st.seconds;
            moves += 1;
            bar.inc(1);
            if m == EngineMove::Resign || engine.game().is_over() {
                break;
            }
            color = color.opponent();
        }
        let cpu = thread_cpu_seconds()
            .zip(cpu0)
            .map(|(b, a)| (b - a) / moves.max(1) as f64);
        let (evals, hits) = engine.pruner_counts();
        let s_per_move = secs / moves.max(1) as f64;
        let base = rows.first().map_or(s_per_move, |r| r.s_per_move);
        rows.push(SearchBenchRow {
            engine: spec.clone(),
            moves,
            simulations: sims,
            seconds: secs,
            sims_per_s: sims as f64 / secs.max(1e-9),
            s_per_move,
            time_ratio: s_per_move / base.max(1e-12),
            cpu_s_per_move: cpu,
            pruner_evals: evals,
            cache_hits: hits,
        });
    }
    bar.finish_and_clear();
    println!(
        "{:<64} {:>9} {:>8} {:>6} {:>10} {:>12} {:>10}",
        "engine", "sims/s", "s/move", "ratio", "cpu s/move", "pruner evals", "cache hits"
    );
    for r in &rows {
        let cpu = r
            .cpu_s_per_move
            .map_or("-".to_string(), |c| format!("{c:.4}"));
        println!(
            "{:<64} {:>9.0} {:>8.4} {:>6.2} {:>10} {:>12} {:>10}",
            r.engine, r.sims_per_s, r.s_per_move, r.time_ratio, cpu, r.pruner_evals, r.cache_hits
        );
    }
    crate::util::fsio::write_atomic_with(&args.out, |w| {
        let mut csv = csv::Writer::from_writer(w);
        for r in &rows {
            csv.serialize(r)?;
        }
        csv.flush()?;
        Ok(())
    })?;
    println!("wrote {}", args.out.display());
    Ok(())
}

/// Totals of one thread's playouts.
#[derive(Debug, Default, Clone, Copy)]
pub struct PlayoutTally {
    pub playouts: u64,
    pub moves: u64,
    pub black_wins: u64,
}

/// Runs uniform playouts from the empty board until `deadline`, checking the clock every 256.
pub fn playouts_until(rng: &mut FastRng, config: &PlayoutConfig, seconds: f64) -> PlayoutTally {
    let start = Instant::now();
    let limit = Duration::from_secs_f64(seconds);
    let mut tally = PlayoutTally::default();
    let empty = Board::new();
    loop {
        for _ in 0..256 {
            let mut b = empty;
            let r = playout::run(&mut b, Color::Black, &mut Uniform, rng, config, |_, _| {});
            tally.playouts += 1;
            tally.moves += r.moves as u64;
            tally.black_wins += (r.margin > 0.0) as u64;
        }
        if start.elapsed() >= limit {
            return tally;
        }
    }
}

/// Result of the playout benchmark, printed as the README shows it.
pub struct PlayoutReport {
    pub threads: usize,
    pub seconds: f64,
    pub tally: PlayoutTally,
    pub per_thread: Vec<f64>,
}

impl std::fmt::Display for PlayoutReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = self.tally;
        writeln!(f, "threads:            {}", self.threads)?;
        writeln!(f, "seconds:            {:.2}", self.seconds)?;
        writeln!(f, "playouts:           {}", t.playouts)?;
        writeln!(
            f,
            "playouts/s total:   {:.0}",
            t.playouts as f64 / self.seconds
        )?;
        let per: Vec<String> = self.per_thread.iter().map(|r| format!("{r:.0}")).collect();
        writeln!(f, "playouts/s/thread:  {}", per.join(" "))?;
        writeln!(
            f,
            "moves/playout:      {:.1}",
            t.moves as f64 / t.playouts.max(1) as f64
        )?;
        writeln!(
            f,
            "black win share:    {:.4}",
            t.black_wins as f64 / t.playouts.max(1) as f64
        )
    }
}

/// Runs the benchmark on `args.threads` threads.
pub fn playout_bench(args: &PlayoutBenchArgs) -> PlayoutReport {
    let config = PlayoutConfig {
        komi: args.komi,
        ..PlayoutConfig::default()
    };
    let start = Instant::now();
    let results: Vec<(PlayoutTally, f64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..args.threads.max(1))
            .map(|t| {
                s.spawn(move || {
                    let mut rng = FastRng::for_stream(args.seed, t as u64);
                    let t0 = Instant::now();
                    let tally = playouts_until(&mut rng, &config, args.seconds);
                    (tally, t0.elapsed().as_secs_f64())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("bench thread panicked"))
            .collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    let mut tally = PlayoutTally::default();
    for (t, _) in &results {
        tally.playouts += t.playouts;
        tally.moves += t.moves;
        tally.black_wins += t.black_wins;
    }
    let per_thread = results
        .iter()
        .map(|(t, secs)| t.playouts as f64 / secs)
        .collect();
    PlayoutReport {
        threads: args.threads.max(1),
        seconds,
        tally,
        per_thread,
    }
}
