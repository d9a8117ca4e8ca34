//! `akushu bench ...`: speed measurements printed as figures anyone can rerun.

use std::time::Instant;

use clap::{Args, Subcommand};

use crate::playout::heavy::{Heavy, HeavyConfig};
use crate::playout::{self, PlayoutConfig, PlayoutPolicy, Uniform};
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
    /// Training throughput of a network shape: examples/s, CPU/wall and GFLOP/s of the real
    /// training step at each thread count, next to the machine's measured FMA peak.
    Train(TrainBenchArgs),
    /// Self-play throughput of an engine spec: positions per wall second and per CPU second
    /// at each job count (the same games each time), and the ratio to one job.
    Selfplay(SelfplayBenchArgs),
}

// A bench of no work would print rates of nothing (0 examples/s, a batch of 0 measured).
fn bench_games_arg(text: &str) -> Result<u32, String> {
    crate::util::num::parse_in("games", text, 1, 100_000)
}

fn batch_arg(text: &str) -> Result<usize, String> {
    crate::util::num::parse_in("batch size", text, 1, 1 << 20)
}

fn steps_arg(text: &str) -> Result<usize, String> {
    crate::util::num::parse_in("steps", text, 1, 1_000_000)
}

fn bench_moves_arg(text: &str) -> Result<usize, String> {
    crate::util::num::parse_in("moves", text, 1, 100_000)
}

#[derive(Debug, Clone, Args)]
pub struct SelfplayBenchArgs {
    /// The self-play engine spec (one thread per game).
    #[arg(long, default_value = "strong3:sims=400")]
    pub engine: String,
    /// Games per job count.
    #[arg(long, default_value_t = 8, value_parser = bench_games_arg)]
    pub games: u32,
    /// Job counts (games at once) to measure.
    #[arg(long, value_delimiter = ',', default_value = "1,2", value_parser = crate::util::num::jobs_arg)]
    pub jobs: Vec<usize>,
    /// Seed of the games (the same games at every job count).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Debug, Clone, Args)]
pub struct TrainBenchArgs {
    /// Which network.
    #[arg(long, value_enum, default_value = "cnn")]
    pub model: crate::net::NetKind,
    /// CNN residual blocks.
    #[arg(long, default_value_t = 6)]
    pub blocks: usize,
    /// CNN channels.
    #[arg(long, default_value_t = 64)]
    pub channels: usize,
    /// MLP hidden widths.
    #[arg(long, value_delimiter = ',', default_value = "256,256")]
    pub hidden: Vec<usize>,
    /// MLP input encoding.
    #[arg(long, value_enum, default_value = "paper")]
    pub encoding: crate::net::options::EncodingArg,
    /// Examples per step; several (comma-separated) are measured one after another.
    #[arg(long, value_delimiter = ',', default_value = "256", value_parser = batch_arg)]
    pub batch_size: Vec<usize>,
    /// Timed steps per thread count (after one warm-up step).
    #[arg(long, default_value_t = 20, value_parser = steps_arg)]
    pub steps: usize,
    /// Thread counts to measure (0 = one per core; at most 256).
    #[arg(long, value_delimiter = ',', default_value = "1,0", value_parser = crate::util::num::threads_arg)]
    pub threads: Vec<usize>,
    /// Where the steps run: `cpu`, or a GPU (`gpu`, `vulkan[:N]`, `cuda[:N]`) in a GPU
    /// build. On a GPU the thread count only sizes the CPU pool and no CPU peak is measured.
    #[arg(long, default_value = "cpu")]
    pub device: crate::net::DeviceChoice,
    /// Seconds of the FMA peak loop per thread count (above 0, at most 1e6).
    #[arg(long, default_value_t = 1.0, value_parser = crate::util::num::seconds_arg)]
    pub peak_seconds: f64,
    /// CSV output file.
    #[arg(long, default_value = "runs/bench-train.csv")]
    pub out: std::path::PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct SearchBenchArgs {
    /// Simulations per move.
    #[arg(long, default_value_t = 10_000)]
    pub sims: u32,
    /// Moves of self-play per engine, from the empty board.
    #[arg(long, default_value_t = 8, value_parser = bench_moves_arg)]
    pub moves: usize,
    /// Pruner used by the pruned variants: `rule`, `random`, or `nn` (the network in
    /// `models/default`).
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
    /// Also measure each engine keeping the final score and owners of every simulation, as
    /// GTP analysis does (`kata-analyze`'s score and ownership): one more row per engine.
    #[arg(long)]
    pub analysis: bool,
}

#[derive(Debug, Clone, Args)]
pub struct PlayoutBenchArgs {
    /// Worker threads, each running its own playouts (at most 256).
    #[arg(long, default_value_t = 1, value_parser = crate::util::num::threads_arg)]
    pub threads: usize,
    /// How long to run (above 0, at most 1e6 seconds).
    #[arg(long, default_value_t = 5.0, value_parser = crate::util::num::seconds_arg)]
    pub seconds: f64,
    /// Run exactly this many playouts per thread instead of `--seconds` (0 = use the clock):
    /// a fixed amount of work, for instruction counts under `valgrind --tool=callgrind`.
    #[arg(long, default_value_t = 0)]
    pub playouts: u64,
    /// Seed; thread `t` uses stream `t` of it.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Komi for the win share (-10000 to 10000).
    #[arg(long, default_value_t = 6.5, allow_hyphen_values = true, value_parser = crate::rules::komi_arg)]
    pub komi: f32,
    /// Playout policy: the paper's uniform one, or the search's heavy one (`heavy`, and
    /// `ladders` = heavy with ladder reading, as in the strong engine; `semeai` = that and
    /// two-liberty fights).
    #[arg(long, value_enum, default_value_t = BenchPolicy::Uniform)]
    pub policy: BenchPolicy,
}

/// The playout policies `bench playouts` can time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchPolicy {
    Uniform,
    Heavy,
    Ladders,
    Semeai,
}

pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Playouts(args) => {
            crate::outln!("# {}", super::command_line());
            let report = playout_bench(&args);
            crate::out!("{report}");
            Ok(())
        }
        BenchCommand::Search(args) => search_bench(&args),
        BenchCommand::Train(args) => train_bench(&args),
        BenchCommand::Selfplay(args) => selfplay_bench(&args),
    }
}

/// Plays `args.games` self-play games at each job count and prints the throughput table.
pub fn selfplay_bench(args: &SelfplayBenchArgs) -> anyhow::Result<()> {
    use crate::arena::selfplay::{GameRules, play};
    use crate::arena::selfplay_run::SelfplayConfig;
    use std::sync::atomic::{AtomicU32, Ordering};
    crate::outln!("# {}", super::command_line());
    let config = SelfplayConfig {
        engines: vec![args.engine.clone()],
        games: args.games.max(1),
        seed: args.seed,
        rules: GameRules::default(),
        jobs: 1,
        shard: None,
    };
    config.validate()?;
    crate::outln!(
        "| jobs | games | positions | wall s | positions/s | CPU s | positions/CPU-s | wall throughput vs 1 job |"
    );
    crate::outln!("|---|---|---|---|---|---|---|---|");
    let mut base: Option<f64> = None;
    for &jobs in &args.jobs {
        let next = AtomicU32::new(1);
        let start = std::time::Instant::now();
        let rows: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..jobs)
                .map(|_| {
                    s.spawn(|| {
                        let mut rows = Vec::new();
                        loop {
                            let g = next.fetch_add(1, Ordering::Relaxed);
                            if g > config.games {
                                break;
                            }
                            rows.push(play(&config.plan(g), &config.rules));
                        }
                        rows
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("a self-play thread panicked"))
                .collect()
        });
        let wall = start.elapsed().as_secs_f64();
        let rows = rows
            .into_iter()
            .map(|r| r.map(|g| g.row))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let positions: u64 = rows.iter().map(|r| r.positions as u64).sum();
        let cpu: f64 = rows.iter().map(|r| r.cpu_seconds).sum();
        let rate = positions as f64 / wall;
        let ratio = rate / *base.get_or_insert(rate);
        crate::outln!(
            "| {jobs} | {} | {positions} | {wall:.1} | {rate:.1} | {cpu:.1} | {:.1} | {ratio:.2} |",
            rows.len(),
            positions as f64 / cpu.max(1e-9)
        );
    }
    Ok(())
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
    /// CPU seconds per move of the whole process, every search thread counted (getrusage;
    /// empty where the platform does not say): unlike wall time, barely affected by other
    /// jobs sharing the machine.
    pub cpu_s_per_move: Option<f64>,
    /// Simulations per CPU second (the engine's cost, whatever its threads).
    pub sims_per_cpu_s: Option<f64>,
    pub pruner_evals: u64,
    pub cache_hits: u64,
    /// Network (pruner) evaluations per CPU second: a value-network search's cost is one
    /// evaluation a visit, so this is its speed as KataGo counts visits.
    pub evals_per_cpu_s: Option<f64>,
    /// The network kernels these figures ran on (`8-bit vnni, float avx512`: see
    /// `docs/notes-net.md`, "8-bit evaluation"), which set the network's speed.
    pub kernels: String,
}

pub use crate::util::thread_cpu_seconds;

/// Self-plays `args.moves` moves with each engine and writes the table.
pub fn search_bench(args: &SearchBenchArgs) -> anyhow::Result<()> {
    use crate::search::spec::{parse_uct_kind, resolved_config};
    use crate::search::uct::UctEngine;
    use crate::search::{Engine, EngineMove};
    crate::outln!("# {}", super::command_line());
    let kind = crate::util::output::FileKind {
        name: "search bench CSV",
        signature: b"engine,moves,",
        mark: None,
    };
    // The CSV is checked before minutes of measuring, not after.
    crate::util::output::file_target(&args.out, kind, false, &[])?;
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
        // The full config goes to the terminal as one line (the CSV names each spec).
        let one_line: serde_json::Value = serde_json::from_str(&resolved_config(s)?)?;
        crate::outln!("# {s}: {one_line}");
    }
    let runs: Vec<(String, bool)> = specs
        .iter()
        .flat_map(|s| {
            let modes: &[bool] = if args.analysis {
                &[false, true]
            } else {
                &[false]
            };
            modes.iter().map(move |&a| (s.clone(), a))
        })
        .collect();
    let kernels = crate::net::plain::kernels_in_use();
    crate::outln!("# network kernels: {kernels}");
    let bar = indicatif::ProgressBar::new((runs.len() * args.moves) as u64);
    let mut rows: Vec<SearchBenchRow> = Vec::new();
    for (spec, analysis) in &runs {
        let mut engine = UctEngine::new(parse_uct_kind(spec)?, args.seed)?.with_name(spec.as_str());
        engine.new_game(6.5);
        if *analysis {
            engine.track_outcomes();
        }
        let (mut sims, mut secs, mut moves) = (0u64, 0f64, 0usize);
        // Process CPU time: every search thread counts.
        let cpu0 = crate::util::cpu_seconds();
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
        let cpu = crate::util::cpu_seconds()
            .zip(cpu0)
            .map(|(b, a)| (b - a) / moves.max(1) as f64);
        let (evals, hits) = engine.pruner_counts();
        let s_per_move = secs / moves.max(1) as f64;
        let base = rows.first().map_or(s_per_move, |r| r.s_per_move);
        rows.push(SearchBenchRow {
            engine: if *analysis {
                format!("{spec} (analysis)")
            } else {
                spec.clone()
            },
            moves,
            simulations: sims,
            seconds: secs,
            sims_per_s: sims as f64 / secs.max(1e-9),
            s_per_move,
            time_ratio: s_per_move / base.max(1e-12),
            cpu_s_per_move: cpu,
            sims_per_cpu_s: cpu.map(|c| sims as f64 / (c * moves.max(1) as f64).max(1e-9)),
            pruner_evals: evals,
            cache_hits: hits,
            evals_per_cpu_s: cpu.map(|c| evals as f64 / (c * moves.max(1) as f64).max(1e-9)),
            kernels: kernels.clone(),
        });
    }
    bar.finish_and_clear();
    crate::outln!(
        "{:<64} {:>9} {:>8} {:>6} {:>10} {:>10} {:>12} {:>10} {:>11}  {}",
        "engine",
        "sims/s",
        "s/move",
        "ratio",
        "cpu s/move",
        "sims/cpu-s",
        "pruner evals",
        "cache hits",
        "evals/cpu-s",
        "kernels"
    );
    for r in &rows {
        let cpu = r
            .cpu_s_per_move
            .map_or("-".to_string(), |c| format!("{c:.4}"));
        let whole = |x: Option<f64>| x.map_or("-".to_string(), |c| format!("{c:.0}"));
        crate::outln!(
            "{:<64} {:>9.0} {:>8.4} {:>6.2} {:>10} {:>10} {:>12} {:>10} {:>11}  {}",
            r.engine,
            r.sims_per_s,
            r.s_per_move,
            r.time_ratio,
            cpu,
            whole(r.sims_per_cpu_s),
            r.pruner_evals,
            r.cache_hits,
            whole(r.evals_per_cpu_s),
            r.kernels
        );
    }
    crate::util::output::write_file(&args.out, kind, false, &[], |w| {
        let mut csv = csv::Writer::from_writer(w);
        for r in &rows {
            csv.serialize(r)?;
        }
        csv.flush()?;
        Ok(())
    })?;
    crate::outln!("wrote {}", args.out.display());
    Ok(())
}

/// Totals of one thread's playouts.
#[derive(Debug, Default, Clone, Copy)]
pub struct PlayoutTally {
    pub playouts: u64,
    pub moves: u64,
    pub black_wins: u64,
    /// A checksum of every playout's final position and length: equal for two builds
    /// exactly when (barring a hash collision) they played the same playouts, so a speed-up
    /// that must not change what the policy plays can be checked with it.
    pub checksum: u64,
}

impl PlayoutTally {
    fn add(&mut self, board: &Board, r: &playout::PlayoutResult) {
        self.playouts += 1;
        self.moves += r.moves as u64;
        self.black_wins += (r.margin > 0.0) as u64;
        self.checksum = (self.checksum.rotate_left(5) ^ board.hash())
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(r.moves as u64);
    }
}

/// Runs playouts of `policy` from the empty board until `seconds` have passed (clock checked
/// every 256 playouts) or, when `count` is not 0, exactly `count` playouts.
pub fn playouts_until(
    rng: &mut FastRng,
    config: &PlayoutConfig,
    policy: BenchPolicy,
    seconds: f64,
    count: u64,
) -> PlayoutTally {
    let start = Instant::now();
    let limit = crate::util::num::duration_saturating(seconds);
    let mut tally = PlayoutTally::default();
    let empty = Board::new();
    let heavy = HeavyConfig {
        ladders: matches!(policy, BenchPolicy::Ladders | BenchPolicy::Semeai),
        semeai: policy == BenchPolicy::Semeai,
        ..HeavyConfig::default()
    };
    loop {
        let batch = if count > 0 {
            (count - tally.playouts).min(256)
        } else {
            256
        };
        for _ in 0..batch {
            let mut b = empty;
            let r = match policy {
                BenchPolicy::Uniform => one_playout(&mut b, &mut Uniform, rng, config),
                BenchPolicy::Heavy | BenchPolicy::Ladders | BenchPolicy::Semeai => {
                    one_playout(&mut b, &mut Heavy::new(heavy, [None, None]), rng, config)
                }
            };
            tally.add(&b, &r);
        }
        let done = if count > 0 {
            tally.playouts >= count
        } else {
            start.elapsed() >= limit
        };
        if done {
            return tally;
        }
    }
}

/// One playout from `board`, black first (monomorphised per policy: the uniform figure stays
/// the tight loop it was measured as).
#[inline(always)]
fn one_playout<P: PlayoutPolicy>(
    board: &mut Board,
    policy: &mut P,
    rng: &mut FastRng,
    config: &PlayoutConfig,
) -> playout::PlayoutResult {
    playout::run(board, Color::Black, policy, rng, config, |_, _| {})
}

/// Result of the playout benchmark, printed as the README shows it.
pub struct PlayoutReport {
    pub threads: usize,
    pub seconds: f64,
    pub tally: PlayoutTally,
    pub per_thread: Vec<f64>,
    /// Playouts per second of on-CPU time of each thread (fair on a loaded machine; empty
    /// where the platform does not report thread CPU time).
    pub per_thread_cpu: Vec<f64>,
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
        if !self.per_thread_cpu.is_empty() {
            let cpu: Vec<String> = self
                .per_thread_cpu
                .iter()
                .map(|r| format!("{r:.0}"))
                .collect();
            writeln!(f, "playouts/cpu-s/thread: {}", cpu.join(" "))?;
        }
        writeln!(
            f,
            "moves/playout:      {:.1}",
            t.moves as f64 / t.playouts.max(1) as f64
        )?;
        writeln!(
            f,
            "black win share:    {:.4}",
            t.black_wins as f64 / t.playouts.max(1) as f64
        )?;
        writeln!(f, "checksum:           {:016x}", t.checksum)
    }
}

/// Runs the benchmark on `args.threads` threads.
pub fn playout_bench(args: &PlayoutBenchArgs) -> PlayoutReport {
    let config = PlayoutConfig {
        komi: args.komi,
        ..PlayoutConfig::default()
    };
    let start = Instant::now();
    let results: Vec<(PlayoutTally, f64, Option<f64>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..args.threads.max(1))
            .map(|t| {
                s.spawn(move || {
                    let mut rng = FastRng::for_stream(args.seed, t as u64);
                    let t0 = Instant::now();
                    let cpu0 = thread_cpu_seconds();
                    let tally =
                        playouts_until(&mut rng, &config, args.policy, args.seconds, args.playouts);
                    let cpu = thread_cpu_seconds().zip(cpu0).map(|(b, a)| b - a);
                    (tally, t0.elapsed().as_secs_f64(), cpu)
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
    for (t, _, _) in &results {
        tally.playouts += t.playouts;
        tally.moves += t.moves;
        tally.black_wins += t.black_wins;
        tally.checksum = tally.checksum.rotate_left(1) ^ t.checksum;
    }
    let per_thread = results
        .iter()
        .map(|(t, secs, _)| t.playouts as f64 / secs)
        .collect();
    let per_thread_cpu = results
        .iter()
        .filter_map(|(t, _, cpu)| cpu.filter(|c| *c > 0.0).map(|c| t.playouts as f64 / c))
        .collect();
    PlayoutReport {
        threads: args.threads.max(1),
        seconds,
        tally,
        per_thread,
        per_thread_cpu,
    }
}

#[cfg(test)]
mod playout_bench_tests {
    use super::*;

    #[test]
    fn fixed_count_runs_exactly_that_many_and_is_seeded() {
        let args = PlayoutBenchArgs {
            threads: 2,
            seconds: 100.0,
            playouts: 300,
            seed: 9,
            komi: 6.5,
            policy: BenchPolicy::Uniform,
        };
        let a = playout_bench(&args);
        let b = playout_bench(&args);
        assert_eq!(
            a.tally.playouts, 600,
            "300 per thread, the clock is ignored"
        );
        assert_eq!(
            (a.tally.moves, a.tally.black_wins),
            (b.tally.moves, b.tally.black_wins)
        );
        assert_eq!(a.tally.checksum, b.tally.checksum);
        let moves = a.tally.moves as f64 / 600.0;
        assert!((90.0..130.0).contains(&moves), "{moves} moves per playout");
    }

    #[test]
    fn heavy_playouts_are_seeded_and_differ_from_uniform() {
        let run = |policy, seed| {
            playout_bench(&PlayoutBenchArgs {
                threads: 1,
                seconds: 100.0,
                playouts: 100,
                seed,
                komi: 6.5,
                policy,
            })
            .tally
            .checksum
        };
        for policy in [
            BenchPolicy::Heavy,
            BenchPolicy::Ladders,
            BenchPolicy::Semeai,
        ] {
            assert_eq!(run(policy, 3), run(policy, 3), "{policy:?}");
            assert_ne!(run(policy, 3), run(policy, 4), "{policy:?}");
            assert_ne!(run(policy, 3), run(BenchPolicy::Uniform, 3), "{policy:?}");
        }
    }
}

/// One row of the training benchmark CSV.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TrainBenchRow {
    pub network: String,
    pub device: String,
    pub batch_size: usize,
    pub threads: usize,
    pub examples_per_s: f64,
    pub cpu_per_wall: f64,
    /// Training work per example (3 x forward).
    pub mflop_per_example: f64,
    pub gflops: f64,
    /// The FMA loop's GFLOP/s on the same number of threads.
    pub fma_peak_gflops: f64,
    pub share_of_peak: f64,
    pub vector_unit: String,
}

/// Times the training step of one network shape at each thread count.
pub fn train_bench(args: &TrainBenchArgs) -> anyhow::Result<()> {
    use crate::net::cnn::CnnConfig;
    use crate::net::mlp::MlpConfig;
    use crate::net::speed::{fma_peak_gflops, time_training, training_flops};
    crate::outln!("# {}", super::command_line());
    let kind = crate::util::output::FileKind {
        name: "training bench CSV",
        signature: b"network,batch_size,",
        mark: None,
    };
    // The CSV is checked before minutes of measuring, not after.
    crate::util::output::file_target(&args.out, kind, false, &[])?;
    let device = args.device.device()?;
    let base = crate::net::TrainConfig::new(args.model)
        .with_augment(false)
        .with_cnn(
            CnnConfig::new()
                .with_blocks(args.blocks)
                .with_channels(args.channels),
        )
        .with_mlp(
            MlpConfig::new()
                .with_hidden(args.hidden.clone())
                .with_encoding(args.encoding.into()),
        );
    let network = base.network_name();
    // Positions of seeded random games: the step's cost does not depend on the moves.
    let positions = crate::net::synthetic::random_game_positions(64, 1);
    let mflop = training_flops(&base) * 1e-6;
    crate::outln!("# {network}: {mflop:.1} MFLOP per training example (3 x forward)");
    let mut rows = Vec::new();
    for &batch_size in &args.batch_size {
        let config = base.clone().with_batch_size(batch_size);
        for &threads in &args.threads {
            let speed = time_training(&config, &positions, threads, args.steps, &device)?;
            // The FMA loop measures this CPU; a GPU's peak is the vendor's figure, not ours.
            let (peak, unit) = if args.device.is_gpu() {
                (f64::NAN, "gpu")
            } else {
                fma_peak_gflops(speed.threads, args.peak_seconds)
            };
            let row = TrainBenchRow {
                network: network.clone(),
                device: args.device.to_string(),
                batch_size,
                threads: speed.threads,
                examples_per_s: speed.examples_per_second,
                cpu_per_wall: speed.cpu_per_wall,
                mflop_per_example: mflop,
                gflops: speed.gflops,
                fma_peak_gflops: peak,
                share_of_peak: if peak.is_nan() {
                    f64::NAN
                } else {
                    speed.gflops / peak.max(1e-9)
                },
                vector_unit: unit.to_string(),
            };
            crate::outln!(
                "{} batch {batch_size}, threads {}: {:.0} examples/s, cpu/wall {:.2}, {:.1} GFLOP/s of {:.0} peak ({unit}): {:.1}%",
                row.device,
                row.threads,
                row.examples_per_s,
                row.cpu_per_wall,
                row.gflops,
                row.fma_peak_gflops,
                100.0 * row.share_of_peak
            );
            rows.push(row);
        }
    }
    crate::util::output::write_file(&args.out, kind, false, &[], |w| {
        let mut csv = csv::Writer::from_writer(w);
        for r in &rows {
            csv.serialize(r).map_err(std::io::Error::other)?;
        }
        csv.flush()
    })?;
    crate::outln!("wrote {}", args.out.display());
    Ok(())
}
