//! The match runner: plans the games (seeds, colours, shard), plays the missing ones on
//! `jobs` threads, and keeps the results folder up to date after every game so that an
//! interrupted match resumes where it stopped.
//!
//! A results folder holds `match.toml` (program version and the full resolved config, like
//! gogui-twogtp's `.dat` header), `games.csv` (one row per finished game, sorted, rewritten
//! atomically after each game: it is the checkpoint), `sgf/game-NNNNN.sgf`, and `summary.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::game::{Side, Winner};
pub use super::identity::{resolved_specs, spec_model_checksums};
use super::openings::{Suite, SuiteSpec};
use super::outside::{CommandFiles, GtpAnswers, OutsideEngine};
use super::pairs::{EloEstimate, Pentanomial, trinomial_elo};
use super::player::{GtpTimeouts, build_player};
use super::record::{GameRecord, read_csv};
use super::referee::{GameRules, GameSetup, MatchClock, RefereedGame, referee_game};
use super::repeats::{GameMoves, Repeats, find_repeats};
use super::sprt::{Decision, Sprt, SprtState};
use super::summary::{MatchSummary, summarize};
pub use crate::runs::folder::ProgramInfo;
use crate::runs::folder::{GamesDir, Opened, RunConfig, RunHeader, Schedule};
use crate::search::TimeControl;
use crate::util::fsio::write_atomic;
use crate::util::rng::FastRng;

pub use crate::runs::folder::Shard;

/// Most games one match may plan.
pub const MAX_GAMES: u32 = 1_000_000;

/// Every tunable of a match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchConfig {
    /// Player A's engine spec: black in every game, or in odd-numbered games with `alternate`.
    pub black: String,
    /// Player B's engine spec.
    pub white: String,
    /// Games in the whole match (all shards together).
    pub games: u32,
    /// Match seed: game g is seeded with stream g of it, each player with a stream of that.
    pub seed: u64,
    /// Komi given to white (area scoring).
    pub komi: f32,
    /// Alternate colours: player A takes white in even-numbered games.
    pub alternate: bool,
    /// Move cap (passes included); a capped game is counted as it stands.
    pub max_moves: u32,
    /// Timeouts for GTP engines (a timeout loses the game).
    pub timeouts: GtpTimeouts,
    /// Games played at the same time (threads).
    pub jobs: usize,
    /// This run's share of the games, if sharded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The clock both players play under (none: each engine thinks as its spec says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeSpec>,
    /// Stop once a sequential test decides (`games` is then the most played).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<Sprt>,
    /// The opening suite games start from (none: the empty board), its file, count and
    /// checksum ([`super::openings`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<SuiteSpec>,
    /// Games in pairs: games 2k+1 and 2k+2 play opening k (cycling through the suite) with
    /// colours swapped, A black in the first; the statistics count pairs (pentanomial).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pairs: bool,
}

/// A match clock as written in `match.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeSpec {
    /// The system in `kgs-time_settings` words: `absolute 300`, `byoyomi 60 5 3`,
    /// `canadian 0 5 1` (5 seconds a move: what `--time-per-move 5` writes).
    pub system: String,
    /// Seconds of each move the referee does not count (its own and the pipes' overhead).
    pub grace: f64,
}

impl TimeSpec {
    /// Referee overhead not counted against a clock by default, where a move gets more
    /// (see [`TimeSpec::default_grace`]).
    pub const DEFAULT_GRACE: f64 = 0.2;

    /// The grace a clock gets unless one is named: [`TimeSpec::DEFAULT_GRACE`] where a move
    /// gets more than that in overtime, else half the move's time. A grace at or above a
    /// move's time would mean no move ever counts (refused by [`TimeSpec::clock`]), so short
    /// clocks such as the loop's 0.1 s gates get one that keeps the clock on, while every
    /// longer clock keeps the 0.2 s its recorded matches were played with.
    pub fn default_grace(per_move: Option<f64>) -> f64 {
        match per_move {
            Some(s) if s <= TimeSpec::DEFAULT_GRACE => s / 2.0,
            _ => TimeSpec::DEFAULT_GRACE,
        }
    }

    /// `seconds` a move: Canadian overtime with no main time and one stone a period.
    pub fn per_move(seconds: f64) -> TimeSpec {
        TimeSpec {
            system: format!("canadian 0 {seconds} 1"),
            grace: TimeSpec::default_grace(Some(seconds)),
        }
    }

    /// A clock in kgs-time_settings words with the default grace for its overtime (a system
    /// that does not parse keeps [`TimeSpec::DEFAULT_GRACE`]; [`TimeSpec::clock`] names the
    /// fault).
    pub fn with_default_grace(system: String) -> TimeSpec {
        let per_move = parse_control(&system).ok().and_then(overtime_per_move);
        TimeSpec {
            grace: TimeSpec::default_grace(per_move),
            system,
        }
    }

    /// The clock, checked.
    pub fn clock(&self) -> anyhow::Result<MatchClock> {
        let control = parse_control(&self.system)
            .map_err(|e| anyhow::anyhow!("time control `{}`: {e}", self.system))?;
        crate::util::num::check("time grace (seconds)", self.grace, 0.0, 60.0)
            .map_err(anyhow::Error::msg)?;
        // The grace is taken off every move before it counts: at or above the overtime a move
        // gets, no move would ever use the clock, and "equal time" would mean no limit.
        if let Some(s) = overtime_per_move(control).filter(|&s| self.grace > 0.0 && self.grace >= s)
        {
            anyhow::bail!(
                "time grace {} s is not below the {s} s a move gets in overtime: the clock \
                 would never count a move (lower --time-grace)",
                self.grace
            );
        }
        Ok(MatchClock {
            control,
            grace: self.grace,
        })
    }
}

/// A clock system in kgs-time_settings words.
fn parse_control(system: &str) -> anyhow::Result<TimeControl> {
    let words: Vec<&str> = system.split_whitespace().collect();
    TimeControl::from_kgs(&words)
}

/// The seconds one move gets in a clock's overtime (none for absolute time or no clock).
fn overtime_per_move(control: TimeControl) -> Option<f64> {
    match control {
        TimeControl::ByoYomi { period, .. } => Some(period),
        TimeControl::Canadian { period, stones, .. } => Some(period / f64::from(stones)),
        TimeControl::Absolute { .. } | TimeControl::None => None,
    }
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig {
            black: "random".into(),
            white: "random".into(),
            games: 100,
            seed: 1,
            komi: 6.5,
            alternate: false,
            max_moves: super::game::MATCH_MAX_MOVES,
            timeouts: GtpTimeouts::default(),
            jobs: 1,
            shard: None,
            time: None,
            sprt: None,
            openings: None,
            pairs: false,
        }
    }
}

impl MatchConfig {
    /// The same match: equal in everything that decides which games are played and how
    /// (`jobs`, the number of games and the sequential test, which only say when to stop,
    /// may change between runs of one folder).
    /// Players are compared by what they are ([`crate::search::spec::spec_identity`]), not
    /// by their spelling: a network folder named another way is the same player.
    pub fn same_match(&self, other: &MatchConfig) -> bool {
        use crate::search::spec::spec_identity;
        let norm = |c: &MatchConfig| MatchConfig {
            black: spec_identity(&c.black),
            white: spec_identity(&c.white),
            // A suite is known by its openings, wherever its file is.
            openings: c.openings.clone().map(|o| SuiteSpec {
                file: String::new(),
                ..o
            }),
            jobs: 0,
            games: 0,
            sprt: None,
            ..c.clone()
        };
        norm(self) == norm(other)
    }

    /// Checks every number against its range (komi, timeouts, jobs, move cap), naming the
    /// setting: match folders and experiment files reach here without the CLI's parsers.
    pub fn validate(&self) -> anyhow::Result<()> {
        use crate::util::num::{MAX_SECONDS, MAX_THREADS, check};
        let e = anyhow::Error::msg;
        crate::rules::check_komi("komi", self.komi).map_err(e)?;
        for (name, v) in [
            ("genmove timeout (seconds)", self.timeouts.genmove_s),
            ("command timeout (seconds)", self.timeouts.command_s),
        ] {
            check(name, v, f64::MIN_POSITIVE, MAX_SECONDS).map_err(e)?;
        }
        check("jobs", self.jobs, 1, MAX_THREADS).map_err(e)?;
        check("max_moves", self.max_moves, 1, 100_000).map_err(e)?;
        // The plan lists every game: a hostile count must not allocate gigabytes.
        check("games", self.games, 0, MAX_GAMES).map_err(e)?;
        if let Some(t) = &self.time {
            t.clock()?;
        }
        if self.pairs && self.games % 2 == 1 {
            bail!(
                "--pairs plays the games two by two (each opening with colours swapped): \
                 give an even --games, not {}",
                self.games
            );
        }
        if let Some(o) = &self.openings
            && o.count == 0
        {
            bail!("openings {}: the suite has no opening", o.file);
        }
        if let Some(s) = &self.sprt {
            s.validate()?;
            if self.shard.is_some() {
                bail!(
                    "a sequential test (--sprt) needs every game of the match in one folder: \
                     it cannot run on a shard"
                );
            }
        }
        Ok(())
    }

    /// The sequential test over the games in `rows` (if the match has one): A's results in
    /// game order from game 1, up to the first game not finished yet.
    /// A paired match is tested on its complete pairs in order, on pentanomial frequencies.
    pub fn sprt_state(&self, rows: &BTreeMap<u32, GameRecord>) -> Option<SprtState> {
        let sprt = self.sprt?;
        if self.pairs {
            return Some(sprt.run_pairs(self.pair_scores(rows, true)));
        }
        let scores = (1..=self.games).map_while(|g| rows.get(&g)).map(a_score);
        Some(sprt.run(scores))
    }

    /// A's score in each complete pair of a paired match (0 to 2), in pair order: up to the
    /// first pair not complete where `leading` (the sequential test's order), else every
    /// complete pair.
    pub fn pair_scores(&self, rows: &BTreeMap<u32, GameRecord>, leading: bool) -> Vec<f64> {
        let mut out = Vec::new();
        for k in 0..self.games / 2 {
            match (rows.get(&(2 * k + 1)), rows.get(&(2 * k + 2))) {
                (Some(a), Some(b)) => out.push(a_score(a) + a_score(b)),
                _ if leading => break,
                _ => {}
            }
        }
        out
    }

    /// The suite opening game `game` starts from (0-based), if the match has a suite: in a
    /// paired match both games of pair k play opening k, otherwise game g plays opening
    /// g - 1; either way cycling through the suite.
    pub fn opening_index(&self, game: u32) -> Option<u32> {
        let count = self.openings.as_ref()?.count.max(1);
        let unit = if self.pairs { (game - 1) / 2 } else { game - 1 };
        Some(unit % count)
    }

    /// The pair game `game` belongs to in a paired match (0-based).
    pub fn pair_of(&self, game: u32) -> Option<u32> {
        self.pairs.then(|| (game - 1) / 2)
    }

    /// The setup of game `game` with its opening from `suite` (the match's suite, read and
    /// checked against the recorded checksum).
    pub fn game_setup_in(&self, game: u32, suite: Option<&Suite>) -> GameSetup {
        let mut setup = self.game_setup(game);
        if let (Some(suite), Some(i), Some(spec)) =
            (suite, self.opening_index(game), self.openings.as_ref())
            && let Some(o) = suite.openings.get(i as usize)
        {
            setup.opening = o.moves.clone();
            setup.opening_name = format!(
                "opening {} of {} of suite {} ({})",
                i + 1,
                spec.count,
                spec.checksum,
                o.source
            );
        }
        setup
    }

    /// Whether the match's sequential test has decided on the games in `rows`: such a match
    /// plays no more games.
    pub fn sprt_decided(&self, rows: &BTreeMap<u32, GameRecord>) -> bool {
        self.sprt_state(rows)
            .is_some_and(|s| s.decision != Decision::Undecided)
    }

    /// The seed of game `game`.
    pub fn game_seed(&self, game: u32) -> u64 {
        FastRng::for_stream(self.seed, game as u64).next_u64()
    }

    /// The setup of game `game` (1-based).
    pub fn game_setup(&self, game: u32) -> GameSetup {
        let a_black = !(self.alternate || self.pairs) || game % 2 == 1;
        let (black, white, label) = if a_black {
            (&self.black, &self.white, Side::A)
        } else {
            (&self.white, &self.black, Side::B)
        };
        GameSetup {
            game,
            seed: self.game_seed(game),
            black: black.clone(),
            white: white.clone(),
            black_player: Some(label),
            opening: Vec::new(),
            opening_name: String::new(),
        }
    }

    /// The games this run is responsible for.
    pub fn planned_games(&self) -> Vec<u32> {
        self.schedule().planned()
    }

    fn rules(&self) -> GameRules {
        // validate() has checked the clock; one that does not parse plays without one.
        let clock = self.time.as_ref().and_then(|t| t.clock().ok());
        GameRules::plain(self.komi, self.max_moves, clock)
    }
}

impl RunConfig for MatchConfig {
    const KEY: &'static str = "match";
    const FILE: &'static str = "match.toml";
    const KIND: &'static str = "match";
    const COMMENT: &'static str =
        "# akushu match results: program and the full resolved configuration";
    fn specs(&self) -> Vec<&String> {
        vec![&self.black, &self.white]
    }
    fn schedule(&self) -> Schedule {
        Schedule {
            games: self.games,
            shard: self.shard,
        }
    }
    fn check_same_run(&self, old: &MatchConfig, header: &Path) -> anyhow::Result<()> {
        if old.same_match(self) {
            return Ok(());
        }
        bail!(
            "{} holds a different match ({}): resume only with the same players, seed, komi, \
             colours, move cap, timeouts, clock, openings, pairs and shard, or use a new --out \
             folder",
            header.display(),
            describe_difference(old, self)
        )
    }
}

/// `match.toml`: program, resolved config, engines and model checksums.
pub type MatchHeader = RunHeader<MatchConfig>;

/// Player A's score in one game: 1 for a win, 0.5 for a draw, 0 for a loss.
pub fn a_score(r: &GameRecord) -> f64 {
    if r.winner == Winner::Draw {
        0.5
    } else if (r.winner == Winner::Black) == (r.black_player == Side::A) {
        1.0
    } else {
        0.0
    }
}

/// The checksum of every model directory `config`'s players load; a model that cannot be
/// read is left out (building the player reports it).
pub fn model_checksums(config: &MatchConfig) -> BTreeMap<String, crate::util::checksum::Checksum> {
    spec_model_checksums([&config.black, &config.white])
}

/// The files of a match folder (`match.toml`, `games.csv`, `sgf/`, `summary.md`).
pub type ResultsDir = GamesDir<MatchConfig, GameRecord>;

impl ResultsDir {
    pub fn summary(&self) -> PathBuf {
        self.root.join("summary.md")
    }

    /// Writes `summary.md` for `rows`.
    pub fn write_summary(
        &self,
        header: &MatchHeader,
        rows: &[GameRecord],
    ) -> anyhow::Result<MatchSummary> {
        let mut summary = summarize(rows, [&header.config.black, &header.config.white]);
        summary.outside_engines = outside_lines(header);
        let planned = header.config.planned_games().len();
        let text = format!(
            "# Match summary\n\n{} {}; games finished {} of {} planned{}\n\n\
             - A (`--black`): `{}`\n- B (`--white`): `{}`\n- komi {}, {} colours, seed {}, move cap {}\n\n{}",
            header.program.name,
            header.program.version,
            rows.len(),
            planned,
            header
                .config
                .shard
                .map(|s| format!(" (shard {s})"))
                .unwrap_or_default(),
            header.config.black,
            header.config.white,
            header.config.komi,
            if header.config.alternate {
                "alternating"
            } else {
                "fixed"
            },
            header.config.seed,
            header.config.max_moves,
            summary
        );
        let by_game: BTreeMap<u32, GameRecord> = rows.iter().map(|r| (r.game, r.clone())).collect();
        let paired = paired_figures(&header.config, &by_game);
        let repeats = self.repeats(&header.config, rows);
        let mut text = text;
        if let Some(p) = &paired {
            text += &format!("\n{}\n", p.describe());
        }
        if repeats.games > 0 {
            text += &format!("\n{}\n", repeats.describe());
        }
        text += &format!("\n{}\n", plan_history_text(header));
        let sprt = header.config.sprt.zip(header.config.sprt_state(&by_game));
        let text = match sprt {
            Some((test, state)) if state.decision != Decision::Undecided => {
                format!("{text}\n{}\n\n{STOPPED_INTERVALS}\n", test.describe(&state))
            }
            Some((test, state)) => format!("{text}\n{}\n", test.describe(&state)),
            None => text,
        };
        write_atomic(&self.summary(), text.as_bytes())?;
        let mut json = summary_json(header, rows.len(), planned, &summary);
        if let Some(p) = &paired {
            json["pairs"] = p.json();
        }
        json["repeats"] = repeats.json();
        // By spec, as match.toml records them; a `gtp:` player missing here was not recorded.
        json["outside_engines"] = serde_json::to_value(&header.outside)?;
        json["plan"] = serde_json::json!({
            "planned_games": header.plan.as_ref().and_then(|p| p.planned_games),
            "history": header.plan.as_ref().map(|p| p.history.clone()),
            "machines": header.plan.as_ref().map(|p| p.machines.clone()),
        });
        if let Some((test, state)) = sprt {
            json["sprt"] = sprt_json(&test, &state);
        }
        let path = self.root.join("summary.json");
        write_atomic(&path, format!("{json:#}\n").as_bytes())?;
        Ok(summary)
    }
}

impl ResultsDir {
    /// The repeated games among `rows` (their SGFs read back, from the archive when the
    /// folder is packed; a game whose SGF is missing or does not parse is left out), the two
    /// games of a pair not compared.
    pub fn repeats(&self, config: &MatchConfig, rows: &[GameRecord]) -> Repeats {
        find_repeats(&self.game_moves(config, rows, 0))
    }

    /// The moves of each game of `rows` for [`find_repeats`], labelled `game N` (`folder`
    /// keys the pairs when several folders are compared together).
    pub fn game_moves(
        &self,
        config: &MatchConfig,
        rows: &[GameRecord],
        folder: usize,
    ) -> Vec<GameMoves> {
        rows.iter()
            .filter_map(|r| {
                let path = self.sgf(r.game);
                let bytes = crate::util::pack::read_game_file(&path).ok()?;
                let text = path.display().to_string();
                let rec = crate::sgf::parse_record(&bytes, &text, &text).ok()?;
                Some(GameMoves {
                    label: format!("game {}", r.game),
                    pair: config.pair_of(r.game).map(|k| (folder, k)),
                    moves: rec.moves,
                })
            })
            .collect()
    }
}

/// A paired match's figures: the pentanomial of its complete pairs, the Elo from them, and
/// beside it the trinomial (win/draw/loss) Elo of the same games counted as independent.
pub struct PairedFigures {
    pub pentanomial: Pentanomial,
    pub paired: Option<EloEstimate>,
    pub trinomial: Option<EloEstimate>,
    /// Games of incomplete pairs, left out of both.
    pub unpaired_games: usize,
}

/// The figures of a paired match (`None` for an unpaired one).
pub fn paired_figures(c: &MatchConfig, rows: &BTreeMap<u32, GameRecord>) -> Option<PairedFigures> {
    if !c.pairs {
        return None;
    }
    let scores = c.pair_scores(rows, false);
    let pentanomial = Pentanomial::of(scores.iter().copied());
    let in_pairs: Vec<f64> = (0..c.games / 2)
        .filter_map(|k| Some((rows.get(&(2 * k + 1))?, rows.get(&(2 * k + 2))?)))
        .flat_map(|(a, b)| [a_score(a), a_score(b)])
        .collect();
    Some(PairedFigures {
        pentanomial,
        paired: pentanomial.elo(),
        trinomial: trinomial_elo(in_pairs.iter().copied()),
        unpaired_games: rows.len() - in_pairs.len(),
    })
}

impl PairedFigures {
    /// The summary's lines.
    pub fn describe(&self) -> String {
        let c = self.pentanomial.counts;
        let show = |e: &Option<EloEstimate>| e.map_or("-".to_string(), |e| e.to_string());
        format!(
            "Pairs (each opening twice, colours swapped): {} complete{}; A's score a pair \
             0 / 0.5 / 1 / 1.5 / 2: {} / {} / {} / {} / {} (pentanomial)\n             - A's Elo over B from the pairs (pentanomial, 95%): {}\n             - A's Elo over B from the same games as independent (trinomial W/D/L, 95%): {}",
            self.pentanomial.pairs(),
            if self.unpaired_games > 0 {
                format!(
                    " ({} games of incomplete pairs left out)",
                    self.unpaired_games
                )
            } else {
                String::new()
            },
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            show(&self.paired),
            show(&self.trinomial)
        )
    }

    /// The figures for `summary.json`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "pentanomial": self.pentanomial.counts,
            "pairs": self.pentanomial.pairs(),
            "elo_pentanomial": self.paired,
            "elo_trinomial": self.trinomial,
            "unpaired_games": self.unpaired_games,
        })
    }
}

/// Each outside player's record as the summary lists it: `B `gtp:...`: name ...`, or that
/// the folder does not record it (written before outside engines' identities were kept).
pub fn outside_lines(header: &MatchHeader) -> Vec<String> {
    let c = &header.config;
    [("A", &c.black), ("B", &c.white)]
        .into_iter()
        .filter(|(_, spec)| super::outside::gtp_command(spec).is_some())
        .map(|(label, spec)| match header.outside.get(spec) {
            Some(r) => format!("{label} `{spec}`: {}", r.describe()),
            None => format!(
                "{label} `{spec}`: not recorded (match.toml was written before outside \
                 engines' names, versions and checksums were kept); visits a move not reported"
            ),
        })
        .collect()
}

/// The summary's plan history: the games planned at the first game and every dated change.
pub fn plan_history_text(header: &MatchHeader) -> String {
    match &header.plan {
        None => "Plan history: none recorded (the folder was written before match.toml kept \
                 one, so whether its plan changed cannot be read off it)"
            .to_string(),
        Some(plan) => {
            let mut text = match plan.planned_games {
                Some(n) => format!("Plan history ({n} games planned at the first game):"),
                None => {
                    "Plan history (the first games were played before plans were kept):".to_string()
                }
            };
            for line in &plan.history {
                text += &format!("\n- {line}");
            }
            if !plan.machines.is_empty() {
                text += "\n\nMachines (one line per run that played games):";
                for line in &plan.machines {
                    text += &format!("\n- {line}");
                }
            }
            text
        }
    }
}

/// Said under the figures of a match its sequential test stopped: the intervals are those
/// of a fixed number of games, and a stop chosen by the results makes them cover less.
pub const STOPPED_INTERVALS: &str = "The sequential test stopped this match: the Wilson \
    intervals above are computed as for a fixed number of games and cover less than 95% after \
    a stop the results chose (about 91% in seeded simulations of elo0=0,elo1=35): read them \
    as descriptive, and the test's decision as the result.";

/// The sequential test in `summary.json`: its settings, its decision (`H0`, `H1` or
/// `undecided`), the games it counted, A's score in them and the log-likelihood ratio.
fn sprt_json(test: &Sprt, state: &SprtState) -> serde_json::Value {
    let (lower, upper) = test.bounds();
    serde_json::json!({
        "elo0": test.elo0,
        "elo1": test.elo1,
        "alpha": test.alpha,
        "beta": test.beta,
        "decision": match state.decision {
            Decision::H0 => "H0",
            Decision::H1 => "H1",
            Decision::Undecided => "undecided",
        },
        "games": state.games,
        "score": state.score,
        "llr": state.llr,
        "bounds": [lower, upper],
        "intervals_after_sequential_stop": state.decision != Decision::Undecided,
    })
}

/// `summary.md`'s figures for programs: the match's settings, each player's counts with
/// the win rate's Wilson 95% interval and per-move costs, and black's wins. Rates are
/// `null` before the first game.
fn summary_json(
    header: &MatchHeader,
    finished: usize,
    planned: usize,
    s: &super::summary::MatchSummary,
) -> serde_json::Value {
    use super::summary::Rate;
    let rate = |r: &Rate| {
        let (lo, hi) = r.interval();
        let some = r.games > 0;
        serde_json::json!({
            "wins": r.wins,
            "games": r.games,
            "rate": some.then(|| r.rate()),
            "wilson95": some.then_some([lo, hi]),
        })
    };
    let players: Vec<serde_json::Value> = s
        .players
        .iter()
        .map(|p| {
            serde_json::json!({
                "label": p.label,
                "spec": p.spec,
                "overall": rate(&p.overall),
                "clean": rate(&p.clean),
                "unforfeited": rate(&p.unforfeited),
                "starved_losses": p.starved_losses,
                "as_black": rate(&p.as_black),
                "as_white": rate(&p.as_white),
                "draws": p.draws,
                "errors": p.errors,
                "seconds_per_move": (p.moves > 0).then(|| p.seconds_per_move()),
                "cpu_seconds_per_move": p.cpu_per_move(),
                "sims_per_move": (p.moves > 0).then(|| p.sims_per_move()),
                "moves": p.moves,
            })
        })
        .collect();
    let c = &header.config;
    serde_json::json!({
        "program": { "name": header.program.name, "version": header.program.version },
        "games_finished": finished,
        "games_planned": planned,
        "shard": c.shard.map(|x| x.to_string()),
        "black": c.black,
        "white": c.white,
        "komi": c.komi,
        "alternate": c.alternate,
        "seed": c.seed,
        "max_moves": c.max_moves,
        "players": players,
        "black_wins": rate(&s.black),
        "errors": s.errors,
        "time_losses": s.time_losses,
        "starved_forfeits": s.starved_forfeits,
        "score_disagreements": s.score_disagreements,
        "wall_seconds": s.wall_seconds,
        "thinking_seconds": s.thinking_seconds,
    })
}

/// How a run went.
pub struct MatchOutcome {
    pub rows: Vec<GameRecord>,
    pub summary: MatchSummary,
    /// Games played by this run (not counting those found finished).
    pub played_now: usize,
}

/// Checks that both specs build (and GTP engines start) before any game is played, so a
/// typo fails the match at once instead of losing every game by error. Returns each outside
/// engine's `name` and `version` answers, by spec, for the folder's record.
pub fn check_players(config: &MatchConfig) -> anyhow::Result<BTreeMap<String, GtpAnswers>> {
    let mut answers = BTreeMap::new();
    for spec in [&config.black, &config.white] {
        let mut p = build_player(spec, 0, config.timeouts)
            .map_err(|e| anyhow::anyhow!("player {spec:?}: {e}"))?;
        p.new_game(config.komi)
            .map_err(|e| anyhow::anyhow!("player {spec:?} failed to set up a game: {e}"))?;
        if let Some(a) = p.gtp_answers().map_err(|e| {
            anyhow::anyhow!("player {spec:?} failed to answer `name` and `version`: {e}")
        })? {
            answers.insert(spec.clone(), a);
        }
        p.close();
    }
    Ok(answers)
}

/// Which changes a resume of a folder with games may make, each only when asked for and
/// dated in the plan's history: `extend`, another plan (more games, another sequential
/// test); `engine_change`, an outside engine whose program, files or `name`/`version`
/// answers are not the recorded ones (`akushu match --allow-engine-change`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ResumeRules {
    pub extend: bool,
    pub engine_change: bool,
}

/// The header's outside engines for a run that plays: each `gtp:` player's `answers` and
/// checksummed `files`, keeping when the first record of the same engine was made (`old`),
/// and marking one first recorded (or changed, when allowed) in a folder that already has
/// `games` games.
fn outside_records(
    files: &BTreeMap<String, CommandFiles>,
    answers: &BTreeMap<String, GtpAnswers>,
    old: Option<&MatchHeader>,
    games: usize,
) -> BTreeMap<String, OutsideEngine> {
    files
        .iter()
        .map(|(spec, f)| {
            let a = answers.get(spec).cloned().unwrap_or_default();
            let mut record = OutsideEngine::new(a, f.clone());
            record.recorded_after_games = match old.and_then(|o| o.outside.get(spec)) {
                Some(was) if super::outside::same_engine(was, &record) => was.recorded_after_games,
                _ => (games > 0).then_some(games as u32),
            };
            (spec.clone(), record)
        })
        .collect()
}

/// Runs (or resumes) a match into `out`. `show_progress` draws a progress bar. A change
/// to the plan of a folder with games (more games, another sequential test) is made and
/// dated in the header's history: what experiments and the loop do when their files ask
/// for more games. `akushu match` asks for `--extend` first ([`run_match_with`]).
pub fn run_match(
    config: &MatchConfig,
    out: &Path,
    show_progress: bool,
) -> anyhow::Result<MatchOutcome> {
    let rules = ResumeRules {
        extend: true,
        engine_change: false,
    };
    run_match_with(config, out, show_progress, rules)
}

/// The plan's settings a resume may change (everything else is refused as another match):
/// the games planned and the sequential test. Each changed one as `name: was -> now`.
fn plan_changes(old: &MatchConfig, new: &MatchConfig) -> Vec<String> {
    let mut out = Vec::new();
    if old.games != new.games {
        out.push(format!("games {} -> {}", old.games, new.games));
    }
    if old.sprt != new.sprt {
        let text = |s: &Option<Sprt>| {
            s.map_or("none".to_string(), |s| {
                format!(
                    "elo0={},elo1={},alpha={},beta={}",
                    s.elo0, s.elo1, s.alpha, s.beta
                )
            })
        };
        out.push(format!("sprt {} -> {}", text(&old.sprt), text(&new.sprt)));
    }
    out
}

/// The plan as the first run writes it: the games, the players, the suite, the pairs and
/// the clock, in one line.
fn plan_line(c: &MatchConfig) -> String {
    format!(
        "planned {} games: A `{}`, B `{}`, seed {}, komi {}, {}{}{}{}",
        c.games,
        c.black,
        c.white,
        c.seed,
        c.komi,
        if c.pairs {
            "pairs"
        } else if c.alternate {
            "alternating colours"
        } else {
            "fixed colours"
        },
        c.openings.as_ref().map_or(String::new(), |o| format!(
            ", openings {} ({} openings, {})",
            o.file, o.count, o.checksum
        )),
        c.time.as_ref().map_or(String::new(), |t| format!(
            ", clock {} (grace {} s)",
            t.system, t.grace
        )),
        c.sprt.map_or(String::new(), |s| format!(
            ", sprt elo0={},elo1={},alpha={},beta={}",
            s.elo0, s.elo1, s.alpha, s.beta
        )),
    )
}

/// [`run_match`], refusing a change to the plan of a folder that has games unless
/// `rules.extend`, and a changed outside engine unless `rules.engine_change`: a run fixed
/// before it started stays fixed unless its record says otherwise.
pub fn run_match_with(
    config: &MatchConfig,
    out: &Path,
    show_progress: bool,
    rules: ResumeRules,
) -> anyhow::Result<MatchOutcome> {
    let extend = rules.extend;
    config.validate()?;
    let dir = ResultsDir::new(out);
    let Opened {
        mut header,
        old,
        mut rows,
    } = dir.open(config, &super::identity::SpecEngines)?;
    match &old {
        // A folder with games keeps its plan; a change is made only when asked for, and
        // dated.
        Some(old) if !rows.is_empty() => {
            let changes = plan_changes(&old.config, config);
            if !changes.is_empty() {
                if !extend {
                    bail!(
                        "{}: its {} games were played under another plan ({}); changing the \
                         plan of a folder with games needs --extend, which records the change \
                         with its date in match.toml's history",
                        out.display(),
                        rows.len(),
                        changes.join(", ")
                    );
                }
                header
                    .plan
                    .get_or_insert_with(Default::default)
                    .note(&format!(
                        "extended after {} games: {} ({})",
                        rows.len(),
                        changes.join(", "),
                        header.program.command
                    ));
            }
        }
        // A new folder, or one whose earlier run played nothing: the plan is this run's.
        _ => {
            let mut plan = crate::runs::folder::PlanRecord {
                planned_games: Some(config.games),
                history: Vec::new(),
                machines: Vec::new(),
            };
            plan.note(&plan_line(config));
            header.plan = Some(plan);
        }
    }
    // A folder whose sequential test has decided stays decided: another test, or none, on
    // a resume would play on past the decision and drop it from the summary.
    if let Some(old) = &old
        && let (Some(test), Some(state)) = (old.config.sprt, old.config.sprt_state(&rows))
        && state.decision != Decision::Undecided
        && config.sprt != Some(test)
    {
        bail!(
            "{}: its sequential test decided: {}; a decided match plays no more games and \
             keeps its test: resume with the same --sprt, or use a new --out folder",
            out.display(),
            test.describe(&state).replace("**", "")
        );
    }
    // A match whose sequential test has decided plays nothing more.
    let planned = if config.sprt_decided(&rows) {
        Vec::new()
    } else {
        config.planned_games()
    };
    let pending = dir.pending(planned, &rows);
    // The suite is read (and checked against its recorded checksum) before any game.
    let suite = config
        .openings
        .as_ref()
        .map(Suite::read_recorded)
        .transpose()?;
    if let Some(s) = &suite {
        s.check_move_cap(config.max_moves)?;
    }
    // Each outside engine's program and files, checksummed now; its answers once it starts.
    let files = super::outside::specs_files(config.specs())?;
    let answers = if pending.is_empty() {
        None
    } else {
        Some(check_players(config)?)
    };
    header.outside = old.as_ref().map(|o| o.outside.clone()).unwrap_or_default();
    if let Some(old) = old.as_ref().filter(|_| !rows.is_empty()) {
        let changes = super::outside::check_same(
            &old.outside,
            &files,
            answers.as_ref(),
            &dir.header(),
            rules.engine_change,
        )?;
        if !changes.is_empty() {
            header
                .plan
                .get_or_insert_with(Default::default)
                .note(&format!(
                    "outside engine changed after {} games, allowed by --allow-engine-change: \
                     {} ({})",
                    rows.len(),
                    changes.join("; "),
                    header.program.command
                ));
        }
    }
    if let Some(answers) = &answers {
        header.outside = outside_records(&files, answers, old.as_ref(), rows.len());
    }
    if !pending.is_empty() {
        header
            .plan
            .get_or_insert_with(Default::default)
            .note_machine(&super::identity::machine_and_kernels());
    }
    dir.start(&header, old.as_ref(), &pending)?;

    let bar = crate::util::progress::progress_bar(pending.len() as u64, show_progress, "games");
    let next = AtomicUsize::new(0);
    // Set once the sequential test decides: no further game starts.
    let stop = AtomicBool::new(false);
    let rules = config.rules();
    let played_now = pending.len();
    // Under a sequential test a game starts only inside a window of `jobs` games from the
    // first one not recorded yet: the deciding game is then at most `jobs - 1` games from
    // the last one started, whatever order the games finish in, and one job plays none past it.
    let window = StartWindow::new(if config.sprt.is_some() {
        config.jobs.max(1)
    } else {
        usize::MAX
    });
    let write_result: anyhow::Result<()> = std::thread::scope(|scope| {
        // Each game with the starved tries played before it (see `play_unstarved`).
        let (tx, rx) = mpsc::channel::<(RefereedGame, Vec<String>)>();
        let jobs = config.jobs.min(pending.len().max(1));
        // However the writer leaves (done, decided or failed), no worker waits on the window.
        let _close = window.closer();
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, pending, stop, window) = (&next, &pending, &stop, &window);
            let suite = suite.as_ref();
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&game) = pending.get(i) else { break };
                    if !window.wait_until_open(i) || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let played = play_unstarved(config, game, &rules, suite);
                    if tx.send(played).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Only this thread writes files: SGF first, then the CSV that marks the game done.
        // `recorded` counts the leading pending games already recorded.
        let mut recorded = 0;
        for (played, starved_tries) in rx {
            let game = played.record.game;
            // Said even when the progress bar is hidden: a void try is part of the record.
            for why in &starved_tries {
                bar.suspend(|| {
                    crate::errln!(
                        "game {game}: {why}; that try is void and the game was played again"
                    )
                });
            }
            if let Some(why) = &played.starved {
                // Starved every time: still the machine's loss, never the engine's.
                bail!(
                    "game {game}: {why}, {} times in a row; nothing was recorded for it \
                     (resume the match on a less loaded machine)",
                    starved_tries.len() + 1
                );
            }
            if let Some(why) = &played.referee_fault {
                // Nobody's loss: stop the match with nothing recorded for this game, so a
                // resume plays it once the machine is fixed.
                bail!(
                    "game {game} could not be played: {why}; nothing was recorded for it \
                     (resume the match once the limit is raised)"
                );
            }
            if !played.record.error.is_empty() {
                bar.println(format!(
                    "game {game}: {} lost by error: {}",
                    played.record.error_by, played.record.error
                ));
            }
            rows.insert(game, played.record);
            dir.record(&[(dir.sgf(game), played.sgf.as_bytes())], &rows)?;
            let a_wins = rows.values().filter(|r| a_score(r) == 1.0).count();
            bar.set_message(format!("A wins {a_wins}/{}", rows.len()));
            bar.inc(1);
            if config.sprt_decided(&rows) {
                if !stop.swap(true, Ordering::Relaxed) {
                    bar.println("the sequential test has decided: no further game starts");
                }
                window.close();
            } else {
                while recorded < pending.len() && rows.contains_key(&pending[recorded]) {
                    recorded += 1;
                }
                window.slide_to(recorded);
            }
        }
        Ok(())
    });
    bar.finish_and_clear();
    write_result?;
    let rows: Vec<GameRecord> = rows.into_values().collect();
    let summary = dir.write_summary(&header, &rows)?;
    Ok(MatchOutcome {
        rows,
        summary,
        played_now,
    })
}

/// Times a game lost on time by a starved engine is played again before the match stops.
pub const STARVED_REPLAYS: usize = 3;

/// Plays `game`, again while a side loses on time on a move its engine got almost no CPU
/// for (the machine's fault: [`super::record::starved`]), at most [`STARVED_REPLAYS`] more
/// times. Returns the last try and why each earlier one was void; the last try's `starved`
/// is still set when every try was starved.
fn play_unstarved(
    config: &MatchConfig,
    game: u32,
    rules: &GameRules,
    suite: Option<&Suite>,
) -> (RefereedGame, Vec<String>) {
    let mut void = Vec::new();
    let setup = config.game_setup_in(game, suite);
    loop {
        let played = referee_game(&setup, rules, config.timeouts);
        match &played.starved {
            Some(why) if void.len() < STARVED_REPLAYS => void.push(why.clone()),
            _ => return (played, void),
        }
    }
}

/// Which pending games may start: those with an index below the first unrecorded one plus
/// `width`. Workers wait on it; the writer slides it as games are recorded and closes it when
/// no further game may start.
struct StartWindow {
    width: usize,
    /// (first pending index not recorded yet, closed)
    state: std::sync::Mutex<(usize, bool)>,
    moved: std::sync::Condvar,
}

impl StartWindow {
    fn new(width: usize) -> Self {
        Self {
            width,
            state: std::sync::Mutex::new((0, false)),
            moved: std::sync::Condvar::new(),
        }
    }

    /// Blocks until pending game `index` may start; false once the window is closed.
    fn wait_until_open(&self, index: usize) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        while !state.1 && index >= state.0.saturating_add(self.width) {
            state = match self.moved.wait(state) {
                Ok(s) => s,
                Err(_) => return false,
            };
        }
        !state.1
    }

    fn slide_to(&self, recorded: usize) {
        if let Ok(mut state) = self.state.lock() {
            state.0 = state.0.max(recorded);
        }
        self.moved.notify_all();
    }

    fn close(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.1 = true;
        }
        self.moved.notify_all();
    }

    /// Closes the window when dropped.
    fn closer(&self) -> impl Drop + '_ {
        struct Closer<'a>(&'a StartWindow);
        impl Drop for Closer<'_> {
            fn drop(&mut self) {
                self.0.close();
            }
        }
        Closer(self)
    }
}

/// Names the first field in which two configs differ.
fn describe_difference(old: &MatchConfig, new: &MatchConfig) -> String {
    let a = toml::Value::try_from(old).ok();
    let b = toml::Value::try_from(new).ok();
    if let (Some(toml::Value::Table(a)), Some(toml::Value::Table(b))) = (a, b) {
        for key in a.keys().chain(b.keys()) {
            if key == "jobs" || key == "games" {
                continue;
            }
            if a.get(key) != b.get(key) {
                return format!(
                    "{key}: was {}, now {}",
                    a.get(key).map(|v| v.to_string()).unwrap_or("unset".into()),
                    b.get(key).map(|v| v.to_string()).unwrap_or("unset".into())
                );
            }
        }
    }
    "configuration differs".into()
}

/// What a merge found: the games, their summary, and the games no shard folder had.
pub struct MergeOutcome {
    pub rows: Vec<GameRecord>,
    pub summary: MatchSummary,
    /// Games in the whole match.
    pub games: u32,
    /// Games of the match found in no input folder, in order.
    pub missing: Vec<u32>,
    /// The shard count the inputs were played with, when they all agree (so that a missing
    /// game can be traced to the shard that should have played it).
    pub shard_count: Option<u32>,
}

impl MergeOutcome {
    /// `None` when the match is complete; otherwise a report of the missing games grouped by
    /// the shard that owns them, with the command line that resumes that shard.
    pub fn missing_report(&self) -> Option<String> {
        if self.missing.is_empty() {
            return None;
        }
        let mut text = format!(
            "{} of {} games are missing from the shards",
            self.missing.len(),
            self.games
        );
        let list = |games: &[u32]| {
            games
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self.shard_count {
            Some(n) => {
                let mut by_shard: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
                for &g in &self.missing {
                    by_shard.entry((g - 1) % n).or_default().push(g);
                }
                for (i, games) in by_shard {
                    text += &format!("\n  shard {i}/{n}: games {}", list(&games));
                }
                text += "\nrerun (or resubmit) those shards: each resumes its folder";
            }
            None => text += &format!(": games {}", list(&self.missing)),
        }
        Some(text)
    }
}

/// Combines shard folders of one match into `out`: the configs must agree (apart from the
/// shard), a game found twice must be the same game, and every SGF is copied. Missing games
/// are not an error here: the outcome lists them (see [`MergeOutcome::missing_report`]).
/// Rewrites `dir/summary.md` from the folder's `match.toml` and `games.csv` (a folder whose
/// summary is missing or older than its games); the games are not touched.
pub fn resummarize(dir: &Path) -> anyhow::Result<MatchSummary> {
    let d = ResultsDir::new(dir);
    let header = d
        .read_header()?
        .with_context(|| format!("{}: not a match folder (no match.toml)", dir.display()))?;
    let rows = read_csv(&d.csv()).with_context(|| format!("reading {}", d.csv().display()))?;
    check_rows(&header, &rows, &d.csv())?;
    d.write_summary(&header, &rows)
}

/// Refuses rows that are not the match's games as `match.toml` plans them: a game number
/// twice or outside the plan (game 999 of an 8-game match, another shard's game), a row whose
/// players, colours or seed are not the ones the plan gives that game. (A winner that is not
/// `B`, `W` or `draw`, or a side that is not `A` or `B`, is refused as the row is read: the
/// columns are [`Winner`] and [`Side`].) The runner writes none of these; a summary or a
/// rating of such rows would count games that were never played. Named by file, row and line.
pub fn check_rows(header: &MatchHeader, rows: &[GameRecord], csv: &Path) -> anyhow::Result<()> {
    let c = &header.config;
    let planned: std::collections::BTreeSet<u32> = c.planned_games().into_iter().collect();
    let mut seen = std::collections::BTreeSet::new();
    for (i, r) in rows.iter().enumerate() {
        let at = || {
            format!(
                "{}: row {} (line {}), game {}",
                csv.display(),
                i + 1,
                i + 2,
                r.game
            )
        };
        if !seen.insert(r.game) {
            bail!("{}: the game is there twice", at());
        }
        if !planned.contains(&r.game) {
            bail!(
                "{}: not one of the match's games ({} planned{})",
                at(),
                c.games,
                c.shard.map(|s| format!(", shard {s}")).unwrap_or_default()
            );
        }
        let setup = c.game_setup(r.game);
        if Some(r.black_player) != setup.black_player {
            bail!(
                "{}: black_player {:?}, but the match gives black to {} in that game",
                at(),
                r.black_player.as_str(),
                setup.black_player.map_or("", Side::as_str)
            );
        }
        if r.black != setup.black || r.white != setup.white || r.seed != setup.seed {
            bail!(
                "{}: its players or seed are not the ones match.toml gives that game",
                at()
            );
        }
    }
    Ok(())
}

/// The outside engines of merged shards: one record a spec (the first shard's), refusing a
/// shard whose engine is another; the games of shards that recorded none, or recorded it
/// late, are counted into the merged record's `recorded_after_games`.
#[derive(Default)]
struct OutsideMerge {
    records: BTreeMap<String, OutsideEngine>,
    /// By spec: games of the shards played before (or without) a record of the engine.
    unrecorded: BTreeMap<String, u32>,
}

impl OutsideMerge {
    fn add(&mut self, header: &MatchHeader, games: usize, input: &Path) -> anyhow::Result<()> {
        let c = &header.config;
        let specs = if c.black == c.white {
            vec![&c.black]
        } else {
            vec![&c.black, &c.white]
        };
        for spec in specs {
            if super::outside::gtp_command(spec).is_none() {
                continue;
            }
            let before = match header.outside.get(spec) {
                Some(r) => {
                    match self.records.get(spec) {
                        None => {
                            self.records.insert(spec.clone(), r.clone());
                        }
                        Some(first) if super::outside::same_engine(first, r) => {}
                        Some(first) => bail!(
                            "{} was played with another outside engine `{spec}` ({}; first \
                             shard: {})",
                            input.display(),
                            r.describe(),
                            first.describe()
                        ),
                    }
                    r.recorded_after_games.unwrap_or(0)
                }
                None => games as u32,
            };
            *self.unrecorded.entry(spec.clone()).or_default() += before;
        }
        Ok(())
    }

    fn records(mut self) -> BTreeMap<String, OutsideEngine> {
        for (spec, r) in &mut self.records {
            let before = self.unrecorded.get(spec).copied().unwrap_or(0);
            r.recorded_after_games = (before > 0).then_some(before);
        }
        self.records
    }
}

pub fn merge(inputs: &[PathBuf], out: &Path) -> anyhow::Result<MergeOutcome> {
    if inputs.is_empty() {
        bail!("match merge: give at least one shard folder");
    }
    crate::util::output::check_not_input(out, inputs)?;
    if out.exists() && ResultsDir::new(out).read_header()?.is_none() {
        crate::util::output::check_dir_output(out, "match", false, inputs)?;
    }
    let mut config: Option<MatchConfig> = None;
    let mut shard_counts: Vec<Option<u32>> = Vec::new();
    let mut models: Option<BTreeMap<String, crate::util::checksum::Checksum>> = None;
    let mut plan = None;
    let mut outside = OutsideMerge::default();
    let mut rows: BTreeMap<u32, GameRecord> = BTreeMap::new();
    let mut sgfs: BTreeMap<u32, PathBuf> = BTreeMap::new();
    for input in inputs {
        let dir = ResultsDir::new(input);
        let header = dir.read_header()?.with_context(|| {
            format!(
                "{} has no match.toml: not a results folder",
                input.display()
            )
        })?;
        shard_counts.push(header.config.shard.map(|s| s.count));
        // The first shard's plan record stands for the merged match's.
        if plan.is_none() {
            plan = header.plan.clone();
        }
        match &models {
            None => models = Some(header.models.clone()),
            Some(m) if *m == header.models => {}
            Some(m) => bail!(
                "{} was played with other model weights ({:?}, first shard {:?})",
                input.display(),
                header.models,
                m
            ),
        }
        let mut c = header.config.clone();
        c.shard = None;
        c.jobs = 1;
        outside.add(&header, dir.read_rows()?.len(), input)?;
        match &config {
            None => config = Some(c),
            Some(first) if first == &c => {}
            Some(first) => bail!(
                "{} is a different match ({})",
                input.display(),
                describe_difference(first, &c)
            ),
        }
        for row in dir.read_rows()? {
            if let Some(seen) = rows.get(&row.game) {
                if seen.without_timing() != row.without_timing() {
                    bail!(
                        "game {} differs between shard folders ({})",
                        row.game,
                        input.display()
                    );
                }
                continue;
            }
            sgfs.insert(row.game, dir.sgf(row.game));
            rows.insert(row.game, row);
        }
    }
    let config = config.expect("at least one input");
    let outdir = ResultsDir::new(out);
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    crate::util::output::mark_dir(out, "match")?;
    // Shards may be packed; the merged folder is written loose (`runs pack` packs it).
    crate::util::pack::refuse_packed(out)?;
    for (game, path) in &sgfs {
        let text = crate::util::pack::read_game_file(path)?;
        let copy = outdir.sgf(*game);
        write_atomic(&copy, &text)?;
    }
    let mut header = MatchHeader::new(&config, &super::identity::SpecEngines);
    // The weights and engines the shards recorded, not whatever is on disk now.
    header.models = models.unwrap_or_default();
    header.outside = outside.records();
    header.plan = plan;
    outdir.write_header(&header)?;
    let missing: Vec<u32> = (1..=config.games)
        .filter(|g| !rows.contains_key(g))
        .collect();
    let rows: Vec<GameRecord> = rows.into_values().collect();
    outdir.write_rows(&rows)?;
    let summary = outdir.write_summary(&header, &rows)?;
    let shard_count = match shard_counts[..] {
        [Some(n), ..] if shard_counts.iter().all(|&c| c == Some(n)) => Some(n),
        _ => None,
    };
    Ok(MergeOutcome {
        rows,
        summary,
        games: config.games,
        missing,
        shard_count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_found_beside_the_program_is_checksummed() {
        // A relative name absent under the working folder (the crate root under `cargo
        // test`) but present beside the test program: the engine loads it from there.
        let exe_dir = std::env::current_exe()
            .unwrap()
            .parent()
            .unwrap()
            .to_path_buf();
        let name = format!("akushu-beside-{}/model", std::process::id());
        assert!(!Path::new(&name).exists());
        let copy = exe_dir.join(&name);
        std::fs::create_dir_all(&copy).unwrap();
        for entry in std::fs::read_dir("models/cnn-small").unwrap() {
            let from = entry.unwrap().path();
            std::fs::copy(&from, copy.join(from.file_name().unwrap())).unwrap();
        }
        let spec = format!("strong2:prune=nnq:{name}:65@1,policy=nnq:{name}");
        let sums = spec_model_checksums([&spec]);
        let _ = std::fs::remove_dir_all(copy.parent().unwrap());
        let shipped = crate::net::model::model_checksum(Path::new("models/cnn-small")).unwrap();
        assert_eq!(sums.get(&name), Some(&shipped), "{sums:?}");
        // A name found nowhere is left out, as before.
        let spec = "strong2:prune=nnq:no/such/model:65@1,policy=nnq:no/such/model".to_string();
        assert!(spec_model_checksums([&spec]).is_empty());
    }

    #[test]
    fn a_short_clock_gets_a_grace_below_its_move_time() {
        // The loop's gates play 0.1 s a move: the 0.2 s default would switch the clock off.
        let short = TimeSpec::per_move(0.1);
        assert_eq!(short.grace, 0.05);
        assert_eq!(short.clock().unwrap().grace, 0.05);
        // Clocks over 0.2 s a move keep the 0.2 s their recorded matches used.
        assert_eq!(TimeSpec::per_move(0.25).grace, TimeSpec::DEFAULT_GRACE);
        assert_eq!(TimeSpec::per_move(5.0).grace, TimeSpec::DEFAULT_GRACE);
        // A system in words gets the same rule; absolute time has no per-move overtime.
        assert_eq!(
            TimeSpec::with_default_grace("byoyomi 0 0.1 3".into()).grace,
            0.05
        );
        assert_eq!(
            TimeSpec::with_default_grace("absolute 300".into()).grace,
            0.2
        );
        // A grace named at or above a move's time is still refused.
        let named = TimeSpec {
            grace: 0.1,
            ..TimeSpec::per_move(0.1)
        };
        assert!(
            named
                .clock()
                .unwrap_err()
                .to_string()
                .contains("time grace")
        );
    }

    #[test]
    fn alternating_colours_and_seeds() {
        let c = MatchConfig {
            black: "a".into(),
            white: "b".into(),
            alternate: true,
            ..MatchConfig::default()
        };
        let g1 = c.game_setup(1);
        let g2 = c.game_setup(2);
        assert_eq!((g1.black.as_str(), g1.black_player), ("a", Some(Side::A)));
        assert_eq!((g2.black.as_str(), g2.black_player), ("b", Some(Side::B)));
        assert_ne!(g1.seed, g2.seed);
        assert_eq!(g1.seed, c.game_setup(1).seed);
    }

    #[test]
    fn header_round_trips_through_toml() {
        let h = MatchHeader::new(
            &MatchConfig {
                black: "uct:sims=50".into(),
                shard: Some(Shard { index: 0, count: 2 }),
                ..MatchConfig::default()
            },
            &super::super::identity::SpecEngines,
        );
        assert!(
            h.engines["uct:sims=50"].contains("\"sims\": 50"),
            "{:?}",
            h.engines
        );
        let text = toml::to_string(&h).unwrap();
        assert_eq!(toml::from_str::<MatchHeader>(&text).unwrap(), h);
    }
}
