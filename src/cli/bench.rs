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
    }
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
