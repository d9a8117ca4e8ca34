//! `akushu match ...`: play a match between two players, or merge shard folders.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::arena::match_rules::MatchRules;
use crate::arena::{self, MatchConfig, Shard, TimeSpec};

/// `akushu match --black SPEC --white SPEC --games N --out DIR` or `akushu match merge`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct MatchCommand {
    #[command(subcommand)]
    pub sub: Option<MatchSub>,
    #[command(flatten)]
    pub run: MatchArgs,
}

#[derive(Debug, Subcommand)]
pub enum MatchSub {
    /// Combine the folders of a sharded match into one result.
    Merge(MergeArgs),
    /// Make a balanced opening suite: positions after a few moves of recorded games, drawn
    /// with a seed, one per position up to symmetry, kept where a teacher's win rate for the
    /// side to move is in a band; written as an `.sgfs` file for `match --openings`.
    Openings(OpeningsArgs),
    /// Rewrite the `summary.md` of match folders from their `games.csv` (where it is
    /// missing or older than the games); no game is played or changed.
    Summarize {
        /// Match folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Folder for the merged result.
    #[arg(long)]
    pub out: PathBuf,
    /// Shard folders written by `akushu match --shard i/n`.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// Fail (after writing the merged folder) when games are missing, so that a script or
    /// a dependent cluster job stops there.
    #[arg(long)]
    pub complete: bool,
}

#[derive(Debug, Args)]
pub struct OpeningsArgs {
    /// Folders (or files) of SGF records the positions are drawn from.
    #[arg(long, required = true)]
    pub from: Vec<PathBuf>,
    /// The teacher: a program speaking KataGo's JSON analysis protocol
    /// (`akushu analysis --engine strong8`, `katago analysis -model M -config C`).
    #[arg(long)]
    pub teacher: String,
    /// Positions after FIRST to LAST moves.
    #[arg(long, default_value = "2-8", value_parser = move_range_arg)]
    pub moves: (usize, usize),
    /// The band of the side to move's win rate kept, LOW-HIGH.
    #[arg(long, default_value = "0.40-0.60", value_parser = band_arg)]
    pub winrate: (f64, f64),
    /// Openings in the suite (fewer when the records run out).
    #[arg(long, default_value_t = 200, value_parser = count_arg)]
    pub count: usize,
    /// Seed of the draw.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The teacher's visits a position (`maxVisits`).
    #[arg(long, default_value_t = 100, value_parser = visits_arg)]
    pub visits: u32,
    /// Komi the teacher judges with (a match's default, 6.5).
    #[arg(long, default_value_t = 6.5, allow_hyphen_values = true, value_parser = crate::rules::komi_arg)]
    pub komi: f32,
    /// Seconds to wait for one answer.
    #[arg(long, default_value_t = 600.0, value_parser = crate::util::num::seconds_arg)]
    pub timeout: f64,
    /// The suite file to write (`.sgfs`).
    #[arg(long)]
    pub out: PathBuf,
}

/// `A-B` with whole numbers.
fn move_range_arg(text: &str) -> Result<(usize, usize), String> {
    let err = || format!("`{text}` is not FIRST-LAST, e.g. 2-8");
    let (a, b) = text.split_once('-').ok_or_else(err)?;
    let (a, b) = (
        a.trim().parse().map_err(|_| err())?,
        b.trim().parse().map_err(|_| err())?,
    );
    if a == 0 || a > b || b > 80 {
        return Err(format!("`{text}`: give 1 <= FIRST <= LAST <= 80"));
    }
    Ok((a, b))
}

/// `LOW-HIGH` within 0..1.
fn band_arg(text: &str) -> Result<(f64, f64), String> {
    let err = || format!("`{text}` is not LOW-HIGH, e.g. 0.40-0.60");
    let (a, b) = text.split_once('-').ok_or_else(err)?;
    let (a, b): (f64, f64) = (
        a.trim().parse().map_err(|_| err())?,
        b.trim().parse().map_err(|_| err())?,
    );
    if !(0.0..=1.0).contains(&a) || !(0.0..=1.0).contains(&b) || a > b {
        return Err(format!("`{text}`: give 0 <= LOW <= HIGH <= 1"));
    }
    Ok((a, b))
}

#[derive(Debug, Args)]
pub struct MatchArgs {
    /// Player A: an engine spec (`uct:sims=10000,expand=10,prune=nn:41@0`, `random`) or
    /// `gtp:<command line>` (`gtp:gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead`). Plays black
    /// (in odd-numbered games with --alternate).
    #[arg(long, required = true)]
    pub black: Option<String>,
    /// Player B (same syntax); plays white.
    #[arg(long, required = true)]
    pub white: Option<String>,
    /// Games in the whole match (at most 1,000,000).
    #[arg(long, default_value_t = 100, value_parser = games_arg)]
    pub games: u32,
    /// Games played at once (default: all cores). Results do not depend on it.
    #[arg(long, default_value_t = super::experiment::default_jobs(), value_parser = crate::util::num::jobs_arg)]
    pub jobs: usize,
    /// Match seed (each game's seed is derived from it and logged in the CSV).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Results folder; rerunning with the same folder resumes.
    #[arg(long, required = true)]
    pub out: Option<PathBuf>,
    /// How each game is played.
    #[command(flatten)]
    pub rules: MatchRules,
    /// A clock in kgs-time_settings words: `absolute 300`, `byoyomi 60 5 3`,
    /// `canadian 120 30 10`.
    #[arg(long, value_name = "SYSTEM")]
    pub time: Option<String>,
    /// Seconds of each move the referee does not count against the clock (its own overhead).
    /// Default 0.2, or half a move's overtime where a move gets 0.2 s or less (0.05 at
    /// `--time-per-move 0.1`); a named grace must stay below a move's time.
    #[arg(long, value_parser = crate::util::num::seconds_arg)]
    pub time_grace: Option<f64>,
    /// Play only share i of n (0-based): games g with (g-1) % n == i.
    #[arg(long)]
    pub shard: Option<Shard>,
    /// Start the games from an opening suite: an SGF file, a folder of SGF files or an
    /// `.sgfs` file, each record's main line one opening (moves only, checked legal). Game g
    /// plays opening g (with --pairs: pair k plays opening k), cycling through the suite.
    /// The suite's count and checksum go in match.toml.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Play the games in pairs, each pair's opening twice with colours swapped (A black in
    /// the odd game): the summary adds the pentanomial and its Elo, and --sprt tests the
    /// pairs. --games must be even.
    #[arg(long)]
    pub pairs: bool,
    /// Allow changing the plan (--games, --sprt) of a folder that already has games; the
    /// change is recorded with its date in match.toml's history, which the summary prints.
    #[arg(long)]
    pub extend: bool,
    /// Allow resuming a folder with games although an outside (gtp:) engine changed: its
    /// program's or a file's SHA-256, or its `name`/`version` answer, differs from what
    /// match.toml recorded; the change is dated in match.toml's history.
    #[arg(long)]
    pub allow_engine_change: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

fn count_arg(text: &str) -> Result<usize, String> {
    // A suite of no openings is no suite: `match --openings` refuses one.
    crate::util::num::parse_in("count", text, 1, 1_000_000)
}

fn visits_arg(text: &str) -> Result<u32, String> {
    crate::util::num::parse_in("visits", text, 1, u32::MAX)
}

/// clap parser for `--games`.
fn games_arg(text: &str) -> Result<u32, String> {
    // A match of no games would write a folder and a summary of nothing.
    crate::util::num::parse_in("games", text, 1, crate::arena::runner::MAX_GAMES)
}

impl MatchArgs {
    /// The resolved match configuration, with the suite read and checked.
    pub fn config(&self) -> anyhow::Result<MatchConfig> {
        let openings = match &self.openings {
            Some(path) => {
                let suite = crate::arena::openings::Suite::read(path)?;
                suite.check_move_cap(self.rules.max_moves)?;
                Some(suite.spec(path))
            }
            None => None,
        };
        let mut config = self.rules.config(
            self.black.clone().unwrap_or_default(),
            self.white.clone().unwrap_or_default(),
            self.games,
            self.seed,
            self.jobs,
        );
        config.time = config
            .time
            .or(self.time.clone().map(TimeSpec::with_default_grace))
            .map(|t| TimeSpec {
                grace: self.time_grace.unwrap_or(t.grace),
                ..t
            });
        config.shard = self.shard;
        config.openings = openings;
        config.pairs = self.pairs;
        Ok(config)
    }
}

pub fn run(cmd: MatchCommand) -> anyhow::Result<()> {
    match cmd.sub {
        Some(MatchSub::Summarize { dirs }) => {
            for d in &dirs {
                let s = arena::resummarize(d)?;
                crate::outln!("{}: {} games, summary.md written", d.display(), s.games);
            }
            Ok(())
        }
        Some(MatchSub::Openings(args)) => {
            crate::util::output::check_not_input(&args.out, &args.from)?;
            let request = crate::teacher::suite::SuiteRequest {
                from: args.from.clone(),
                teacher: super::own_program(&args.teacher)?,
                moves: args.moves,
                band: args.winrate,
                count: args.count,
                seed: args.seed,
                visits: args.visits,
                komi: args.komi,
                timeout: std::time::Duration::from_secs_f64(args.timeout),
            };
            let report = crate::teacher::suite::make_suite(&request)?;
            if report.kept.is_empty() {
                anyhow::bail!(
                    "no opening of the {} asked had a win rate for the side to move in the \
                     band {}-{}: nothing written to {}; widen --winrate or draw from more records",
                    report.asked,
                    args.winrate.0,
                    args.winrate.1,
                    args.out.display()
                );
            }
            let text = crate::teacher::suite::sgfs_text(&report.kept, args.komi);
            crate::util::fsio::write_atomic(&args.out, text.as_bytes())?;
            // Read back as a match reads it: the file is a suite, and its checksum is named.
            let suite = crate::arena::openings::Suite::read(&args.out)?;
            crate::outln!(
                "{}: {} openings (of {} asked; {} distinct positions in {} records, {} left \
                 out), checksum {}",
                args.out.display(),
                suite.openings.len(),
                report.asked,
                report.candidates,
                report.records,
                report.skipped,
                suite.checksum()
            );
            if report.kept.len() < args.count {
                crate::errln!(
                    "warning: {} openings asked for, {} found in the band",
                    args.count,
                    report.kept.len()
                );
            }
            Ok(())
        }
        Some(MatchSub::Merge(args)) => {
            let _lock = crate::util::commit::OutputLock::acquire(&args.out)?;
            let outcome = arena::merge(&args.shards, &args.out)?;
            crate::outln!(
                "merged {} folders into {}: {} games",
                args.shards.len(),
                args.out.display(),
                outcome.rows.len()
            );
            crate::out!("{}", outcome.summary);
            match outcome.missing_report() {
                Some(report) if args.complete => anyhow::bail!(
                    "match merge --complete: {} is incomplete: {report}",
                    args.out.display()
                ),
                Some(report) => crate::errln!("warning: {report}"),
                None => {}
            }
            Ok(())
        }
        None => {
            let args = cmd.run;
            let out = args
                .out
                .clone()
                .ok_or_else(|| anyhow::anyhow!("--out DIR is required"))?;
            let config = args.config()?;
            // One writer per match folder: two runs on one folder would play the same games
            // twice and rewrite each other's games.csv.
            let _lock = crate::util::commit::OutputLock::acquire(&out)?;
            // The full header (players' resolved configs, seed, rules) is stored in
            // OUT/match.toml; the terminal gets one line.
            crate::outln!(
                "# match: {} vs {}, {} game{}, komi {}, seed {}{}; header in {}",
                config.black,
                config.white,
                config.games,
                if config.games == 1 { "" } else { "s" },
                config.komi,
                config.seed,
                config.time.as_ref().map_or(String::new(), |t| format!(
                    ", clock {} (grace {} s)",
                    t.system, t.grace
                )),
                out.join("match.toml").display()
            );
            let rules = arena::runner::ResumeRules {
                extend: args.extend,
                engine_change: args.allow_engine_change,
            };
            let outcome = arena::run_match_with(&config, &out, !args.quiet, rules)?;
            crate::outln!(
                "\n{} games in {} ({} played now)\n",
                outcome.rows.len(),
                out.display(),
                outcome.played_now
            );
            crate::out!("{}", outcome.summary);
            // The sequential test's verdict (LLR, bounds, decision), as summary.md has it.
            let by_game = outcome.rows.iter().map(|r| (r.game, r.clone())).collect();
            if let (Some(sprt), Some(state)) = (config.sprt, config.sprt_state(&by_game)) {
                crate::outln!("\n{}", sprt.describe(&state));
            }
            Ok(())
        }
    }
}
