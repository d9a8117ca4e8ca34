//! `akushu yose FILE`: solve an endgame problem exactly; `akushu yose bench DIR`: paper C's
//! table (`docs/papers.md`) — per problem, seconds and nodes for no pruning / kake-me /
//! kake-me + defender extension, per search algorithm — printed and written as CSV.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use crate::rules::{Color, Game, Move};
use crate::yose::{Algorithm, Problem, SolveResult, Solver, SolverConfig};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

impl OnOff {
    fn on(self) -> bool {
        self == OnOff::On
    }
}

#[derive(Debug, Clone, Args)]
pub struct YoseArgs {
    /// A problem file (SGF), or `bench` followed by a folder of problems.
    #[arg(required = true, num_args = 1..=2, value_name = "FILE | bench DIR")]
    pub target: Vec<String>,
    /// Search algorithm (single-problem mode).
    #[arg(long, value_enum, default_value_t = Algorithm::Negascout)]
    pub algo: Algorithm,
    /// Kake-me test at every node (single-problem mode).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub kakeme: OnOff,
    /// Defender extension at the root (single-problem mode).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub defender: OnOff,
    /// Stop each search after this many nodes (0 = no limit).
    #[arg(long, default_value_t = 0)]
    pub node_limit: u64,
    /// Stop each search after this many seconds (0 = no limit, at most 1e6; bench default 60).
    #[arg(long, value_parser = time_limit_arg)]
    pub time_limit: Option<f64>,
    /// Recompute the defender extension down to this many plies below the root (0: root only).
    #[arg(long, default_value_t = 0)]
    pub defender_depth: u32,
    /// Transposition table size: 2^bits entries of 16 bytes (10 to 28).
    #[arg(long, default_value_t = SolverConfig::default().tt_bits, value_parser = tt_bits_arg)]
    pub tt_bits: u32,
    /// Bench: algorithms to run (comma-separated; default all four).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub algos: Vec<Algorithm>,
    /// Bench: pruning modes to run (comma-separated; default all three).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub modes: Vec<Mode>,
    /// Bench: only these problems (file stems, comma-separated; default all).
    #[arg(long, value_delimiter = ',')]
    pub problems: Vec<String>,
    /// Bench: CSV output path.
    #[arg(long, default_value = "yose-bench.csv")]
    pub csv: PathBuf,
    /// Bench: keep the rows already in the CSV and run only the missing ones.
    #[arg(long)]
    pub resume: bool,
    /// Bench: hide the progress bar (each result line is still printed as it is measured).
    #[arg(long)]
    pub quiet: bool,
}

/// clap parser for `--time-limit`.
fn time_limit_arg(text: &str) -> Result<f64, String> {
    crate::util::num::parse_in("seconds", text, 0.0, crate::util::num::MAX_SECONDS)
}

/// clap parser for `--tt-bits`.
fn tt_bits_arg(text: &str) -> Result<u32, String> {
    crate::util::num::parse_in("bits", text, 10, 28)
}

/// The three pruning settings of paper C's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum)]
pub enum Mode {
    None,
    Kakeme,
    #[value(name = "kakeme+defender")]
    KakemeDefender,
}

impl Mode {
    const ALL: [Mode; 3] = [Mode::None, Mode::Kakeme, Mode::KakemeDefender];
    fn name(self) -> &'static str {
        match self {
            Mode::None => "none",
            Mode::Kakeme => "kakeme",
            Mode::KakemeDefender => "kakeme+defender",
        }
    }
    fn flags(self) -> (bool, bool) {
        match self {
            Mode::None => (false, false),
            Mode::Kakeme => (true, false),
            Mode::KakemeDefender => (true, true),
        }
    }
}

pub fn run(args: YoseArgs) -> anyhow::Result<()> {
    match args.target.as_slice() {
        [cmd, dir] if cmd == "bench" => bench(&args, Path::new(dir)),
        [file] => solve_one(&args, Path::new(file)),
        _ => bail!("usage: akushu yose FILE | akushu yose bench DIR"),
    }
}

/// Black's margin with komi, as text.
fn margin_text(score: i32, komi: f32) -> String {
    Game::result_text(score as f32 - komi)
}

fn solve_one(args: &YoseArgs, path: &Path) -> anyhow::Result<()> {
    let config = SolverConfig {
        algorithm: args.algo,
        kakeme: args.kakeme.on(),
        defender: args.defender.on(),
        node_limit: args.node_limit,
        time_limit: args.time_limit.unwrap_or(0.0),
        tt_bits: args.tt_bits,
        defender_depth: args.defender_depth,
        ..SolverConfig::default()
    };
    crate::outln!("# akushu yose {}", path.display());
    crate::outln!("# solver config: {}", serde_json::to_string(&config)?);
    crate::outln!(
        "# scoring: area (stones + surrounded empty points) with komi, game ends at two passes"
    );
    let problem = Problem::load(path).context("yose")?;
    crate::outln!("{}", problem.board);
    crate::outln!(
        "{} to move, komi {}",
        if problem.to_move == Color::Black {
            "black"
        } else {
            "white"
        },
        problem.komi
    );
    let r = Solver::new(config).solve(&problem.board, problem.to_move);
    print_result(&problem, &r);
    Ok(())
}

fn print_result(problem: &Problem, r: &SolveResult) {
    if r.defender_removed != 0 {
        let pts: Vec<String> = crate::rules::BitIter(r.defender_removed)
            .map(|i| crate::rules::Point::new(i).to_gtp())
            .collect();
        crate::outln!("defender extension removed: {}", pts.join(" "));
    }
    match r.score {
        Some(s) => {
            let best = r.best.map_or("-".to_string(), |m: Move| m.to_gtp());
            crate::outln!(
                "best move {best}, score {} (area B-W {s}, komi {})",
                margin_text(s, problem.komi),
                problem.komi
            );
            if let Some(a) = problem.answer {
                let ok = (s as f32 - problem.komi - a).abs() < 1e-3;
                crate::outln!(
                    "stored answer AK[{a}]: {}",
                    if ok { "agrees" } else { "DISAGREES" }
                );
            }
        }
        None => crate::outln!("unfinished (limit reached)"),
    }
    crate::outln!(
        "nodes {}, time {:.3} s, ply-cap hits {}",
        r.nodes,
        r.seconds,
        r.ply_cap_hits
    );
}

/// One row of the bench table.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct BenchRow {
    pub problem: String,
    pub algorithm: String,
    pub mode: String,
    pub finished: bool,
    /// Black's margin with komi (empty when unfinished).
    pub score: Option<f32>,
    pub best: String,
    pub nodes: u64,
    pub seconds: f64,
    /// Stored answer agrees (empty when unfinished or no answer).
    pub agrees: Option<bool>,
}

fn problem_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    crate::dataset::gameset::sgf_files_in(dir)
        .with_context(|| format!("yose bench: cannot read folder {}", dir.display()))
}

fn bench(args: &YoseArgs, dir: &Path) -> anyhow::Result<()> {
    let algos = if args.algos.is_empty() {
        Algorithm::ALL.to_vec()
    } else {
        args.algos.clone()
    };
    let modes = if args.modes.is_empty() {
        Mode::ALL.to_vec()
    } else {
        args.modes.clone()
    };
    let base = SolverConfig {
        node_limit: args.node_limit,
        time_limit: args.time_limit.unwrap_or(60.0),
        tt_bits: args.tt_bits,
        defender_depth: args.defender_depth,
        ..SolverConfig::default()
    };
    crate::outln!("# akushu yose bench {}", dir.display());
    crate::outln!(
        "# solver config (algorithm and pruning vary): {}",
        serde_json::to_string(&base)?
    );
    crate::outln!(
        "# algorithms {:?}, modes {:?}, csv {}",
        algos,
        modes.iter().map(|m| m.name()).collect::<Vec<_>>(),
        args.csv.display()
    );
    let mut problems = Vec::new();
    let mut skipped = 0;
    for f in problem_files(dir)? {
        let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned());
        if !args.problems.is_empty() && !stem.is_some_and(|s| args.problems.contains(&s)) {
            continue;
        }
        match Problem::load(&f) {
            Ok(p) => problems.push(p),
            Err(e) => {
                crate::errln!("skipping: {e}");
                skipped += 1;
            }
        }
    }
    if problems.is_empty() {
        bail!("yose bench: no readable .sgf problems in {}", dir.display());
    }
    let mut rows: Vec<BenchRow> = Vec::new();
    if args.resume && args.csv.exists() {
        let mut r = csv::Reader::from_path(&args.csv)
            .with_context(|| format!("reading {}", args.csv.display()))?;
        for row in r.deserialize() {
            rows.push(row.with_context(|| format!("bad row in {}", args.csv.display()))?);
        }
        crate::outln!("# resuming: {} rows already in the CSV", rows.len());
    }
    let done: HashSet<(String, String, String)> = rows
        .iter()
        .map(|r| (r.problem.clone(), r.algorithm.clone(), r.mode.clone()))
        .collect();
    let total = (problems.len() * algos.len() * modes.len()) as u64;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total).with_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} {msg} [{elapsed_precise}]")
                .expect("valid template"),
        )
    };
    // One search runs up to --time-limit seconds without a step: the tick keeps the clock
    // moving so a long solve does not look like a hang.
    bar.enable_steady_tick(std::time::Duration::from_secs(1));
    // Each result is printed as it is measured (the table follows at the end).
    crate::outln!("# results as measured: problem algorithm mode: score, best, nodes, seconds");
    for p in &problems {
        for &a in &algos {
            for &m in &modes {
                bar.set_message(format!("{} {} {}", p.name, a.name(), m.name()));
                if done.contains(&(p.name.clone(), a.name().into(), m.name().into())) {
                    bar.inc(1);
                    continue;
                }
                let (kakeme, defender) = m.flags();
                let config = SolverConfig {
                    algorithm: a,
                    kakeme,
                    defender,
                    ..base
                };
                let r = Solver::new(config).solve(&p.board, p.to_move);
                let score = r.score.map(|s| s as f32 - p.komi);
                rows.push(BenchRow {
                    problem: p.name.clone(),
                    algorithm: a.name().into(),
                    mode: m.name().into(),
                    finished: r.finished(),
                    score,
                    best: r.best.map_or(String::new(), |m| m.to_gtp()),
                    nodes: r.nodes,
                    seconds: r.seconds,
                    agrees: score.zip(p.answer).map(|(s, a)| (s - a).abs() < 1e-3),
                });
                write_csv(&args.csv, &rows)?;
                let line = result_line(rows.last().expect("just pushed"));
                bar.suspend(|| crate::outln!("{line}"));
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    crate::out!("{}", table(&rows, &algos, &modes));
    if skipped > 0 {
        crate::outln!("skipped {skipped} unreadable problem files");
    }
    let wrong = rows.iter().filter(|r| r.agrees == Some(false)).count();
    crate::outln!(
        "rows {}, disagreeing with the stored answer: {wrong}; csv: {}",
        rows.len(),
        args.csv.display()
    );
    Ok(())
}

/// One measured bench row as a line of text, printed as soon as it is measured.
pub fn result_line(r: &BenchRow) -> String {
    let score = r.score.map_or("unfinished".to_string(), |v| format!("{v}"));
    let answer = match r.agrees {
        Some(true) => ", agrees with the stored answer",
        Some(false) => ", DISAGREES with the stored answer",
        None => "",
    };
    format!(
        "{} {} {}: score {score}, best {}, nodes {}, {:.3} s{answer}",
        r.problem,
        r.algorithm,
        r.mode,
        if r.best.is_empty() { "-" } else { &r.best },
        r.nodes,
        r.seconds
    )
}

/// The bench CSV, recognised by its header when a later run replaces it.
const BENCH_CSV: crate::util::output::FileKind = crate::util::output::FileKind {
    name: "endgame bench CSV",
    signature: b"problem,algorithm,",
    mark: None,
};

fn write_csv(path: &Path, rows: &[BenchRow]) -> anyhow::Result<()> {
    crate::util::output::write_file(path, BENCH_CSV, false, &[], |w| {
        let mut c = csv::Writer::from_writer(w);
        for r in rows {
            c.serialize(r).map_err(std::io::Error::other)?;
        }
        c.flush()
    })
}

/// Paper C's table: one line per problem and algorithm, seconds / nodes per mode.
pub fn table(rows: &[BenchRow], algos: &[Algorithm], modes: &[Mode]) -> String {
    let mut s = format!("{:<8} {:<10} {:>8}", "problem", "algorithm", "score");
    for m in modes {
        s += &format!(" | {:>24}", format!("{} s / nodes", m.name()));
    }
    s.push('\n');
    let mut names: Vec<&str> = rows.iter().map(|r| r.problem.as_str()).collect();
    names.dedup();
    let mut seen = HashSet::new();
    names.retain(|n| seen.insert(*n));
    for name in names {
        for a in algos {
            let score = rows
                .iter()
                .filter(|r| r.problem == name && r.algorithm == a.name())
                .find_map(|r| r.score)
                .map_or("-".to_string(), |v| format!("{v}"));
            s += &format!("{name:<8} {:<10} {score:>8}", a.name());
            for m in modes {
                let cell = rows
                    .iter()
                    .find(|r| r.problem == name && r.algorithm == a.name() && r.mode == m.name())
                    .map_or("".to_string(), |r| {
                        if r.finished {
                            format!("{:.3} / {}", r.seconds, r.nodes)
                        } else {
                            format!(">{:.0} / >{} unsolved", r.seconds, r.nodes)
                        }
                    });
                s += &format!(" | {cell:>24}");
            }
            s.push('\n');
        }
    }
    s
}
