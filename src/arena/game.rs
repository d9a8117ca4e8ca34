//! The one game runner of the arena: matches, the loop's gate and self-play all play their
//! games through [`play_game`], as KataGo's `Play::runGame` serves its selfplay, match and
//! gatekeeper programs. What differs between them is not a second move loop but
//! - how the players are built (a match builds any spec, GTP engines included; self-play only
//!   engines that report their root visits);
//! - the [`GameRules`]: komi, move cap, clock, and the opening randomness self-play wants
//!   (uniform random moves, then a visit-proportional temperature draw);
//! - a [`GameObserver`] told of every searched move (KataGo's `onEachMove`): self-play's
//!   training records are one.
//!
//! The runner checks every move against the rules (positional superko included) and scores
//! the end by area with komi. A player that fails (crash, timeout, garbage, illegal move,
//! refusing a legal move) loses the game; the error is in the [`GameEnd`], and each caller
//! decides what a lost-by-error game means (a match records it, self-play stops).
//!
//! A game is a pure function of its seed and the rules: player seeds, opening and temperature
//! draws all come from streams of the game's seed.

use serde::{Deserialize, Serialize};

pub use super::outcome::{Side, Winner};
use super::player::{Player, PlayerError};
use super::record::{EndReason, cpu_covers_search, starved};
use crate::dataset::record::VISIT_SLOTS;
use crate::rules::{BOARD, Color, Game, Move, Point, Scoring};
use crate::search::{Clock, EngineMove, MoveStats, TimeControl};
use crate::util::rng::FastRng;

/// Self-play's move cap, also the loop's gate's: three board-fulls (3 x 81). The loop's games
/// all stop at one length, its gate's as its self-play's, and every self-play and loop folder
/// recorded was played at it (a loop resumes only under the `loop.toml` it started with, so
/// a new default would make every recorded loop another loop).
pub const SELFPLAY_MAX_MOVES: u32 = 243;

/// A match's move cap (`match`, experiment files), higher than self-play's on purpose: it is
/// the cap every recorded match and experiment folder was played at, and a match resumes only
/// with the config it started with, so matching self-play's would refuse each of them. Games
/// of 9x9 Go rarely reach either cap; one that does is counted as it stands.
pub const MATCH_MAX_MOVES: u32 = 300;

/// How every game of a run is played: self-play's job config, read by `akushu selfplay`'s
/// flags (flattened into them) and by a loop's `[selfplay]` keys (beside its `games` and
/// `jobs`). Serialised as self-play's `[rules]` table (the clock is a match's, written in
/// `match.toml` as its [`super::runner::TimeSpec`], never here). The doc lines are the
/// flags' help.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(deny_unknown_fields, default)]
pub struct GameRules {
    /// Komi for white (-10000 to 10000; area scoring).
    #[arg(long, default_value_t = GameRules::default().komi, allow_hyphen_values = true, value_parser = crate::rules::komi_arg)]
    pub komi: f32,
    /// Move cap (1 to 10,000; passes included); a capped game is counted as it stands,
    /// without ownership.
    #[arg(long, default_value_t = SELFPLAY_MAX_MOVES)]
    pub max_moves: u32,
    /// Opening moves drawn uniformly from the candidate moves, not recorded (0 to 81).
    #[arg(long, default_value_t = GameRules::default().random_moves)]
    pub random_moves: u32,
    /// Temperature of the visit-proportional draw for the first --temperature-moves searched
    /// moves (0 = always the most visited move; at most 100).
    #[arg(long, default_value_t = GameRules::default().temperature)]
    pub temperature: f64,
    /// Searched moves drawn with --temperature (after the random opening).
    #[arg(long, default_value_t = GameRules::default().temperature_moves)]
    pub temperature_moves: u32,
    /// The clock both sides play under, if any: the runner keeps both clocks, tells each
    /// player its time before every move, and a player whose flag falls loses.
    #[serde(skip)]
    #[arg(skip)]
    pub clock: Option<MatchClock>,
}

/// Self-play's defaults (a match names every rule it plays by: [`GameRules::plain`]).
impl Default for GameRules {
    fn default() -> Self {
        GameRules {
            komi: 6.5,
            max_moves: SELFPLAY_MAX_MOVES,
            random_moves: 0,
            temperature: 1.0,
            temperature_moves: 8,
            clock: None,
        }
    }
}

impl GameRules {
    /// Rules with no opening randomness: every move is the player's own (matches).
    pub fn plain(komi: f32, max_moves: u32, clock: Option<MatchClock>) -> GameRules {
        GameRules {
            komi,
            max_moves,
            random_moves: 0,
            temperature: 0.0,
            temperature_moves: 0,
            clock,
        }
    }

    /// Checks the ranges a self-play config may hold (a match checks its own settings,
    /// which allow a longer move cap: [`super::runner::MatchConfig::validate`]).
    pub fn validate(&self) -> anyhow::Result<()> {
        use anyhow::bail;
        crate::rules::check_komi("komi", self.komi).map_err(anyhow::Error::msg)?;
        if self.max_moves == 0 || self.max_moves > 10_000 {
            bail!("max_moves {} is not from 1 to 10000", self.max_moves);
        }
        if !(0.0..=100.0).contains(&self.temperature) {
            bail!("temperature {} is not from 0 to 100", self.temperature);
        }
        if self.random_moves > 81 || self.temperature_moves > 10_000 {
            bail!(
                "random_moves {} (at most 81) or temperature_moves {} (at most 10000) out of range",
                self.random_moves,
                self.temperature_moves
            );
        }
        Ok(())
    }

    /// Whether move `number` (0-based, passes counted) is drawn with the temperature.
    fn draws_with_temperature(&self, number: u32) -> bool {
        self.temperature > 0.0 && number < self.random_moves.saturating_add(self.temperature_moves)
    }
}

/// A match's clock: the system and the grace the referee allows each move for its own
/// overhead (process scheduling, pipes) before it counts the move against the clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchClock {
    pub control: TimeControl,
    pub grace: f64,
}

/// What to play: game number, seed and specs.
#[derive(Debug, Clone, PartialEq)]
pub struct GameSetup {
    pub game: u32,
    pub seed: u64,
    pub black: String,
    pub white: String,
    /// Which match player has black (`None` where the sides have no labels, as in
    /// self-play).
    pub black_player: Option<Side>,
    /// Moves played before either player searches (a match's opening from a suite): each is
    /// checked by the referee and told to both players as an ordinary played move (GTP
    /// `play`) before the first `genmove`; they count towards the move cap.
    pub opening: Vec<(Color, Move)>,
    /// How the game's record names its opening (`opening 3 of suite fnv1a64:...`), said in
    /// a comment at the opening's last move.
    pub opening_name: String,
}

/// The per-player seed for `color` in a game seeded with `game_seed`.
pub fn player_seed(game_seed: u64, color: Color) -> u64 {
    FastRng::for_stream(game_seed, color.idx() as u64 + 1).next_u64()
}

/// Builds the player of a spec with its seed; a failure loses the game for that side.
pub type BuildPlayer<'a> = &'a dyn Fn(&str, u64) -> Result<Box<dyn Player>, PlayerError>;

/// Told of every searched move as the game is played (KataGo's `onEachMove`): the place to
/// record training data or labels without a second game loop.
pub trait GameObserver {
    /// Whether searched moves should come with the root's visits (a player that cannot report
    /// them still answers, with none).
    fn wants_visits(&self) -> bool {
        false
    }

    /// A searched move, chosen (after any temperature draw) and about to be played by `color`
    /// in `game`. Random opening moves had no search and are not reported. A game that fails
    /// after this call ends in an error, which the caller sees in [`GameEnd::error`].
    fn on_move(&mut self, _game: &Game, _color: Color, _played: Move, _search: &MoveSearch<'_>) {}
}

/// The observer of a game nobody records (matches).
pub struct NoObserver;

impl GameObserver for NoObserver {}

/// What the player's search said about a move.
pub struct MoveSearch<'a> {
    pub stats: &'a MoveStats,
    /// The root's visits by point index, pass last, where the player reported them.
    pub visits: Option<&'a [u32; VISIT_SLOTS]>,
}

/// How a game ended and who won.
#[derive(Debug, Clone, PartialEq)]
pub struct GameEnd {
    pub reason: EndReason,
    pub winner: Winner,
    /// SGF-style result: `B+3.5`, `W+R` (resignation), `B+T` (white's flag fell), `B+E`
    /// (white erred), `0`.
    pub result: String,
    /// Black's area margin with komi, when the game was counted.
    pub score: Option<f32>,
    /// The side that erred and the error, for a game lost by error.
    pub error: Option<(Color, String)>,
}

/// A finished game as the runner saw it.
pub struct PlayedGame {
    /// The moves and the final position.
    pub game: Game,
    pub end: GameEnd,
    /// Seconds each side spent thinking (arena-measured around each move), by colour index.
    pub seconds: [f64; 2],
    /// Simulations each side ran (0 when the player does not say: GTP engines).
    pub sims: [u64; 2],
    /// CPU seconds each player used in the game, where known ([`Player::cpu_seconds`]):
    /// from its answer to the new game's set-up to its last move, so a GTP engine's start-up
    /// (loading its network) is not counted as thinking.
    pub cpu: [Option<f64>; 2],
    /// GTP engines' own `final_score` answers (`black=... white=...`) of a counted game.
    pub gtp_score: String,
    /// Set when the machine could not run the game (no descriptors, processes or memory
    /// left): the game is nobody's loss and must not be recorded.
    pub referee_fault: Option<String>,
    /// Set when a side lost on time on a move during which its engine got almost no CPU
    /// ([`super::record::starved`]): the machine's fault, not the engine's; the match
    /// replays the game rather than record the loss.
    pub starved: Option<String>,
}

/// Per-side tallies while a game runs.
#[derive(Default)]
struct Tally {
    seconds: [f64; 2],
    sims: [u64; 2],
}

/// How the move loop ended.
enum Stop {
    Counted(EndReason),
    Resigned(Color),
    Failed(Color, String),
    /// The colour overran its clock.
    Flag(Color),
}

/// Builds both players with `build` and plays the game of `setup` under `rules`, telling
/// `observer` of every searched move.
pub fn play_game(
    setup: &GameSetup,
    rules: &GameRules,
    build: BuildPlayer<'_>,
    observer: &mut dyn GameObserver,
) -> PlayedGame {
    let mut tally = Tally::default();
    let mut game = Game::new(rules.komi);
    let black = build(&setup.black, player_seed(setup.seed, Color::Black));
    let white = build(&setup.white, player_seed(setup.seed, Color::White));
    let mut cpu = [None, None];
    let mut starved_by = None;
    let referee_fault = [&black, &white].iter().find_map(|p| match p {
        Err(e) if e.is_referee_fault() => Some(e.to_string()),
        _ => None,
    });
    let (stop, gtp_score) = match (black, white) {
        (Err(e), _) => (Stop::Failed(Color::Black, e.to_string()), String::new()),
        (_, Err(e)) => (Stop::Failed(Color::White, e.to_string()), String::new()),
        (Ok(b), Ok(w)) => {
            let mut players = [b, w];
            // The opening and temperature draws' own stream: the players have streams 1, 2.
            let mut rng = FastRng::for_stream(setup.seed, 3);
            let mut moves = MoveLoop {
                opening: &setup.opening,
                players: &mut players,
                game: &mut game,
                rules,
                tally: &mut tally,
                rng: &mut rng,
                observer,
                starved: None,
                cpu_start: [None, None],
            };
            let stop = moves.run();
            starved_by = moves.starved.take();
            let cpu_start = moves.cpu_start;
            // Read before `final_score`: the referee's question is not the engine's thinking.
            for ((c, p), start) in cpu.iter_mut().zip(&players).zip(cpu_start) {
                *c = cpu_used(start, p.cpu_seconds());
            }
            let score = match stop {
                Stop::Counted(_) => ask_final_scores(&mut players),
                _ => String::new(),
            };
            for p in &mut players {
                p.close();
            }
            (stop, score)
        }
    };
    PlayedGame {
        end: game_end(stop, &game),
        game,
        seconds: tally.seconds,
        sims: tally.sims,
        cpu,
        gtp_score,
        referee_fault,
        starved: starved_by,
    }
}

/// The end of a game stopped by `stop`, counting the board of a counted game.
fn game_end(stop: Stop, game: &Game) -> GameEnd {
    let lost_by = |loser: Color, reason: EndReason, letter: char, error: Option<String>| {
        let w = loser.opponent();
        GameEnd {
            reason,
            winner: w.into(),
            result: format!("{}+{letter}", w.letter()),
            score: None,
            error: error.map(|e| (loser, e)),
        }
    };
    match stop {
        Stop::Counted(reason) => {
            let margin = game.score(Scoring::Area, 0);
            GameEnd {
                reason,
                winner: Winner::of_margin(margin),
                result: Game::result_text(margin),
                score: Some(margin),
                error: None,
            }
        }
        Stop::Resigned(loser) => lost_by(loser, EndReason::Resign, 'R', None),
        Stop::Flag(loser) => lost_by(loser, EndReason::Time, 'T', None),
        Stop::Failed(loser, error) => lost_by(loser, EndReason::Error, 'E', Some(error)),
    }
}

/// The state of one game's move loop.
struct MoveLoop<'a> {
    /// The set opening, played first.
    opening: &'a [(Color, Move)],
    players: &'a mut [Box<dyn Player>; 2],
    game: &'a mut Game,
    rules: &'a GameRules,
    tally: &'a mut Tally,
    rng: &'a mut FastRng,
    observer: &'a mut dyn GameObserver,
    /// What starved the side whose flag fell, when its engine got almost no CPU.
    starved: Option<String>,
    /// Each player's CPU reading once it has set up the game (after start-up).
    cpu_start: [Option<f64>; 2],
}

/// The CPU seconds a player used between two readings, where both exist.
fn cpu_used(start: Option<f64>, end: Option<f64>) -> Option<f64> {
    Some((end? - start?).max(0.0))
}

impl MoveLoop<'_> {
    /// Runs the move loop until two passes, a resignation, the move cap, a flag or an error.
    fn run(&mut self) -> Stop {
        let rules = *self.rules;
        for c in [Color::Black, Color::White] {
            let p = &mut self.players[c.idx()];
            let started = p.new_game(rules.komi).and_then(|()| match rules.clock {
                Some(clock) => p.set_time_control(clock.control),
                None => Ok(()),
            });
            if let Err(e) = started {
                return Stop::Failed(c, e.to_string());
            }
            self.cpu_start[c.idx()] = p.cpu_seconds();
        }
        for &(c, mv) in self.opening {
            if let Err(stop) = self.forced_move(c, mv) {
                return stop;
            }
        }
        let mut clocks = rules.clock.map(|mc| [Clock::new(mc.control); 2]);
        while !self.game.is_over() {
            let number = self.game.move_count() as u32;
            if number >= rules.max_moves {
                return Stop::Counted(EndReason::MoveCap);
            }
            let c = self.game.to_move();
            let step = if number < rules.random_moves {
                self.random_move(c)
            } else {
                self.searched_move(c, number, &mut clocks)
            };
            if let Err(stop) = step {
                return stop;
            }
        }
        Stop::Counted(EndReason::Passes)
    }

    /// An opening move drawn uniformly, told to both players (neither searched it).
    fn random_move(&mut self, c: Color) -> Result<(), Stop> {
        let mv = random_candidate(self.game, c, self.rng);
        self.forced_move(c, mv)
    }

    /// A move neither player chose (a drawn or a set opening move): checked, then told to
    /// both players as a played move.
    fn forced_move(&mut self, c: Color, mv: Move) -> Result<(), Stop> {
        self.game
            .play_as(c, mv)
            .map_err(|e| Stop::Failed(c, format!("illegal move {}: {e}", mv.to_gtp())))?;
        for side in [Color::Black, Color::White] {
            self.players[side.idx()]
                .play(c, mv)
                .map_err(|e| Stop::Failed(side, rejected(e, c, mv)))?;
        }
        Ok(())
    }

    /// A move the player to move searches (under the clock, if any), possibly replaced by a
    /// temperature draw over its visits, reported to the observer, then played.
    fn searched_move(
        &mut self,
        c: Color,
        number: u32,
        clocks: &mut Option<[Clock; 2]>,
    ) -> Result<(), Stop> {
        let me = c.idx();
        if let Some(clocks) = clocks {
            let clock = clocks[me];
            let stones = if clock.overtime { clock.stones } else { 0 };
            self.players[me]
                .time_left(c, clock.left, stones)
                .map_err(|e| Stop::Failed(c, e.to_string()))?;
        }
        let temperature = self.rules.draws_with_temperature(number);
        let cpu_before = self.players[me].cpu_seconds();
        let answer = if temperature || self.observer.wants_visits() {
            self.players[me].genmove_with_visits(c)
        } else {
            self.players[me].genmove(c).map(|(m, s)| (m, s, None))
        };
        let (choice, stats, visits) = answer.map_err(|e| Stop::Failed(c, e.to_string()))?;
        if let (Some(clocks), Some(mc)) = (clocks.as_mut(), self.rules.clock)
            && clocks[me].spend((stats.seconds - mc.grace).max(0.0))
        {
            self.tally.seconds[me] += stats.seconds;
            let p = &self.players[me];
            if let (Some(a), Some(b)) = (cpu_before, p.cpu_seconds())
                && starved(b - a, stats.seconds)
                && cpu_covers_search(p.spec())
            {
                self.starved = Some(format!(
                    "{}'s flag fell at move {} after {:.3} s with {:.3} CPU s: the machine \
                     starved it",
                    c.letter(),
                    number + 1,
                    stats.seconds,
                    (b - a).max(0.0)
                ));
            }
            return Err(Stop::Flag(c));
        }
        self.tally.seconds[me] += stats.seconds;
        self.tally.sims[me] += stats.simulations;
        let own = match choice {
            EngineMove::Resign => return Err(Stop::Resigned(c)),
            EngineMove::Play(m) => m,
        };
        let mv = match visits.as_deref() {
            Some(v) if temperature => {
                draw_opening_move(v, self.rules.temperature, self.rng).unwrap_or(own)
            }
            _ => own,
        };
        if mv != own {
            // The player has played its own choice: take it back, play the drawn one.
            let p = &mut self.players[me];
            p.undo()
                .and_then(|()| p.play(c, mv))
                .map_err(|e| Stop::Failed(c, format!("drawn move {}: {e}", mv.to_gtp())))?;
        }
        let search = MoveSearch {
            stats: &stats,
            visits: visits.as_deref(),
        };
        self.observer.on_move(self.game, c, mv, &search);
        self.game
            .play_as(c, mv)
            .map_err(|e| Stop::Failed(c, format!("illegal move {}: {e}", mv.to_gtp())))?;
        self.players[c.opponent().idx()]
            .play(c, mv)
            .map_err(|e| Stop::Failed(c.opponent(), rejected(e, c, mv)))
    }
}

/// The error of a player that refused `color`'s legal move `mv`.
fn rejected(e: PlayerError, color: Color, mv: Move) -> String {
    match e {
        PlayerError::Rejected(why) => {
            format!(
                "rejected the legal move {} {}: {why}",
                color.letter(),
                mv.to_gtp()
            )
        }
        other => other.to_string(),
    }
}

/// Asks every player that can count (`final_score`) for its result: `black=B+3.5` etc.
fn ask_final_scores(players: &mut [Box<dyn Player>; 2]) -> String {
    let mut parts = Vec::new();
    for c in [Color::Black, Color::White] {
        if let Some(s) = players[c.idx()].final_score() {
            let name = if c == Color::Black { "black" } else { "white" };
            parts.push(format!(
                "{name}={}",
                s.split_whitespace().next().unwrap_or("")
            ));
        }
    }
    parts.join(" ")
}

/// A uniformly drawn candidate move of `color` that the game allows (superko included), or
/// pass when there is none.
fn random_candidate(game: &Game, color: Color, rng: &mut FastRng) -> Move {
    let cands = game.board().candidates(color, BOARD);
    let moves: Vec<Move> = cands
        .as_slice()
        .iter()
        .map(|&i| Move::Play(Point::new(i as usize)))
        .filter(|&m| game.check(color, m).is_ok())
        .collect();
    if moves.is_empty() {
        Move::Pass
    } else {
        moves[rng.below(moves.len() as u32) as usize]
    }
}

/// The temperature draw of an opening move: a point by its visits, never the pass. Passing
/// is not an opening move: a drawn pass let the other side pass after it and end the game
/// within a few moves (`B[ee] W[pass] B[pass]`), about 2% of the self-play games. The draw
/// over every slot is made first and kept when it is a point, and a drawn pass is replaced
/// by a second draw over the points alone: each point comes out with its share of the
/// points' weight, and the games that never drew a pass replay as they did. `None` when no
/// point has a visit (the player's own choice stands).
pub fn draw_opening_move(
    counts: &[u32; VISIT_SLOTS],
    temperature: f64,
    rng: &mut FastRng,
) -> Option<Move> {
    match draw_by_visits(counts, temperature, rng)? {
        Move::Pass => {
            let mut points = *counts;
            points[VISIT_SLOTS - 1] = 0;
            draw_by_visits(&points, temperature, rng)
        }
        point => Some(point),
    }
}

/// Draws a slot with probability proportional to `visits^(1/temperature)`; `None` when no
/// slot has a visit.
pub fn draw_by_visits(
    counts: &[u32; VISIT_SLOTS],
    temperature: f64,
    rng: &mut FastRng,
) -> Option<Move> {
    let max = *counts.iter().max()? as f64;
    if max == 0.0 {
        return None;
    }
    // Relative to the largest count, so a low temperature cannot overflow.
    let weights: Vec<f64> = counts
        .iter()
        .map(|&c| (c as f64 / max).powf(1.0 / temperature))
        .collect();
    let total: f64 = weights.iter().sum();
    let mut u = rng.unit() * total;
    let mut pick = None;
    for (i, &w) in weights.iter().enumerate() {
        if w > 0.0 {
            pick = Some(i);
            if u < w {
                break;
            }
            u -= w;
        }
    }
    pick.and_then(|i| Move::from_index(i).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temperature_draws_follow_the_visits() {
        let mut counts = [0u32; VISIT_SLOTS];
        counts[10] = 300;
        counts[20] = 100;
        let mut rng = FastRng::new(7);
        let n = 20_000;
        let hits = (0..n)
            .filter(|_| draw_by_visits(&counts, 1.0, &mut rng) == Move::from_index(10).ok())
            .count();
        let share = hits as f64 / n as f64;
        assert!((share - 0.75).abs() < 0.02, "share {share}");
        // A low temperature all but always takes the most visited move.
        let hits = (0..1000)
            .filter(|_| draw_by_visits(&counts, 0.05, &mut rng) == Move::from_index(10).ok())
            .count();
        assert_eq!(hits, 1000);
        assert_eq!(draw_by_visits(&[0; VISIT_SLOTS], 1.0, &mut rng), None);
    }

    #[test]
    fn winners_read_and_write_one_text() {
        for w in [Winner::Black, Winner::White, Winner::Draw] {
            assert_eq!(w.to_string().parse::<Winner>(), Ok(w));
        }
        assert_eq!(Winner::of_margin(0.5), Winner::Black);
        assert_eq!(Winner::of_margin(-6.5), Winner::White);
        assert_eq!(Winner::of_margin(0.0), Winner::Draw);
        assert_eq!(Winner::from_gtp_score("B+3.5"), Some(Winner::Black));
        assert_eq!(Winner::from_gtp_score("w+R"), Some(Winner::White));
        assert_eq!(Winner::from_gtp_score("0"), Some(Winner::Draw));
        assert_eq!(Winner::from_gtp_score("?"), None);
        assert!("b".parse::<Winner>().is_err());
    }

    /// A fake player whose every move is reported as taking `seconds`, with its CPU reading
    /// (a ledger, like a one-thread in-process engine's thread clock) grown by all of them
    /// when `busy` (it had the CPU and overran anyway) or by none (the machine gave it no
    /// CPU). Nothing is timed, so the machine's load cannot change what the referee sees.
    struct Slow {
        spec: String,
        seconds: f64,
        busy: bool,
        cpu: f64,
    }

    impl Player for Slow {
        fn spec(&self) -> &str {
            &self.spec
        }
        fn new_game(&mut self, _: f32) -> Result<(), PlayerError> {
            Ok(())
        }
        fn play(&mut self, _: Color, _: Move) -> Result<(), PlayerError> {
            Ok(())
        }
        fn genmove(&mut self, _: Color) -> Result<(EngineMove, MoveStats), PlayerError> {
            if self.busy {
                self.cpu += self.seconds;
            }
            let stats = MoveStats {
                simulations: 0,
                seconds: self.seconds,
                winrate: None,
            };
            Ok((EngineMove::Play(Move::Pass), stats))
        }
        fn cpu_seconds(&self) -> Option<f64> {
            Some(self.cpu)
        }
    }

    /// A flag that falls on a move the engine got almost no CPU for is marked starved (the
    /// match then replays the game); one that falls while the engine had the CPU is an
    /// honest loss on time; and a many-thread engine's reading, which covers only the game's
    /// thread, marks nothing.
    #[test]
    fn a_flag_fallen_without_cpu_is_the_machines_not_the_engines() {
        let control = TimeControl::Canadian {
            main: 0.0,
            period: 0.05,
            stones: 1,
        };
        let rules = GameRules::plain(
            6.5,
            10,
            Some(MatchClock {
                control,
                grace: 0.02,
            }),
        );
        let setup = GameSetup {
            game: 1,
            seed: 1,
            black: "uct".into(),
            white: "uct".into(),
            black_player: Some(Side::A),
            opening: Vec::new(),
            opening_name: String::new(),
        };
        let play = |spec: &str, busy: bool| {
            let spec = spec.to_string();
            let build = move |_: &str, _: u64| -> Result<Box<dyn Player>, PlayerError> {
                Ok(Box::new(Slow {
                    spec: spec.clone(),
                    seconds: 0.3,
                    busy,
                    cpu: 1.0,
                }))
            };
            play_game(&setup, &rules, &build, &mut NoObserver)
        };
        let asleep = play("uct", false);
        assert_eq!(asleep.end.reason, EndReason::Time);
        let why = asleep.starved.expect("a sleeping engine is starved");
        assert!(why.contains("B's flag fell at move 1"), "{why}");
        let busy = play("uct", true);
        assert_eq!(busy.end.reason, EndReason::Time);
        assert_eq!(busy.starved, None);
        let threads = play("uct:threads=4", false);
        assert_eq!(threads.end.reason, EndReason::Time);
        assert_eq!(threads.starved, None);
    }

    /// A fake player whose CPU reading is a ledger: 5 s of start-up before the game, 2 s to
    /// set the game up, then 0.1 s a genmove, 0.01 s a move it is told and 1 s for the
    /// referee's `final_score`.
    struct Ledger {
        cpu: f64,
    }

    impl Player for Ledger {
        fn spec(&self) -> &str {
            "ledger"
        }
        fn new_game(&mut self, _: f32) -> Result<(), PlayerError> {
            self.cpu += 2.0;
            Ok(())
        }
        fn play(&mut self, _: Color, _: Move) -> Result<(), PlayerError> {
            self.cpu += 0.01;
            Ok(())
        }
        fn genmove(&mut self, _: Color) -> Result<(EngineMove, MoveStats), PlayerError> {
            self.cpu += 0.1;
            let stats = MoveStats {
                simulations: 0,
                seconds: 0.1,
                winrate: None,
            };
            Ok((EngineMove::Play(Move::Pass), stats))
        }
        fn final_score(&mut self) -> Option<String> {
            self.cpu += 1.0;
            None
        }
        fn cpu_seconds(&self) -> Option<f64> {
            Some(self.cpu)
        }
    }

    /// A game's CPU seconds are what each player spent from the game's set-up to its last
    /// move, on its own moves and on the moves it was told: neither its start-up, nor the
    /// set-up itself (a GTP engine loading its network on `clear_board`), nor the referee's
    /// scoring question counts as thinking.
    #[test]
    fn a_players_cpu_counts_the_game_not_its_start_up_or_the_scoring() {
        let setup = GameSetup {
            game: 1,
            seed: 1,
            black: "ledger".into(),
            white: "ledger".into(),
            black_player: Some(Side::A),
            opening: Vec::new(),
            opening_name: String::new(),
        };
        let build = |_: &str, _: u64| -> Result<Box<dyn Player>, PlayerError> {
            Ok(Box::new(Ledger { cpu: 5.0 }))
        };
        let played = play_game(
            &setup,
            &GameRules::plain(6.5, 10, None),
            &build,
            &mut NoObserver,
        );
        assert_eq!(played.end.reason, EndReason::Passes);
        // Black passes (0.1), is told White's pass (0.01); White is told Black's, passes.
        for cpu in played.cpu {
            let cpu = cpu.expect("the ledger reads");
            assert!((cpu - 0.11).abs() < 1e-9, "{cpu}");
        }
    }

    /// A player that would rather pass: its search puts 1000 visits on the pass and one on
    /// each legal point, and its own choice is the pass.
    struct Passer {
        game: Game,
    }

    use super::super::player::Searched;

    impl Player for Passer {
        fn spec(&self) -> &str {
            "passer"
        }
        fn new_game(&mut self, komi: f32) -> Result<(), PlayerError> {
            self.game = Game::new(komi);
            Ok(())
        }
        fn play(&mut self, c: Color, mv: Move) -> Result<(), PlayerError> {
            self.game
                .play_as(c, mv)
                .map_err(|e| PlayerError::Rejected(e.to_string()))
        }
        fn genmove(&mut self, c: Color) -> Result<(EngineMove, MoveStats), PlayerError> {
            self.play(c, Move::Pass)?;
            Ok((EngineMove::Play(Move::Pass), MoveStats::default()))
        }
        fn genmove_with_visits(&mut self, c: Color) -> Result<Searched, PlayerError> {
            let mut visits = Box::new([0u32; VISIT_SLOTS]);
            for (i, v) in visits.iter_mut().enumerate().take(crate::rules::NN) {
                *v = u32::from(self.game.check(c, Move::Play(Point::new(i))).is_ok());
            }
            visits[VISIT_SLOTS - 1] = 1000;
            let (mv, stats) = self.genmove(c)?;
            Ok((mv, stats, Some(visits)))
        }
        fn undo(&mut self) -> Result<(), PlayerError> {
            if self.game.undo() {
                Ok(())
            } else {
                Err(PlayerError::Rejected("nothing to undo".into()))
            }
        }
    }

    /// The temperature draw of the opening never passes, however many visits the pass has:
    /// seeded games of a player that would pass at once play every opening move on the
    /// board (before, the draw took the pass over 90% of the time and the game ended at once).
    #[test]
    fn opening_draws_never_pass() {
        let rules = GameRules {
            max_moves: 8,
            random_moves: 0,
            temperature: 1.0,
            temperature_moves: 8,
            ..GameRules::default()
        };
        let build = |_: &str, _: u64| -> Result<Box<dyn Player>, PlayerError> {
            Ok(Box::new(Passer {
                game: Game::new(6.5),
            }))
        };
        for seed in 1..=20 {
            let setup = GameSetup {
                game: 1,
                seed,
                black: "passer".into(),
                white: "passer".into(),
                black_player: None,
                opening: Vec::new(),
                opening_name: String::new(),
            };
            let g = play_game(&setup, &rules, &build, &mut NoObserver);
            assert_eq!(g.end.reason, EndReason::MoveCap, "seed {seed}");
            assert!(
                g.game.moves().iter().all(|(_, m)| *m != Move::Pass),
                "seed {seed}: {:?}",
                g.game.moves()
            );
        }
        let mut counts = [0u32; VISIT_SLOTS];
        counts[VISIT_SLOTS - 1] = 5;
        assert_eq!(draw_opening_move(&counts, 1.0, &mut FastRng::new(1)), None);
    }

    /// An observer sees every searched move once, in the position before it, and random
    /// opening moves not at all.
    #[test]
    fn the_observer_sees_each_searched_move_before_it_is_played() {
        struct Count {
            moves: Vec<u16>,
            visits: usize,
        }
        impl GameObserver for Count {
            fn wants_visits(&self) -> bool {
                true
            }
            fn on_move(&mut self, game: &Game, _: Color, _: Move, s: &MoveSearch<'_>) {
                self.moves.push(game.move_count() as u16);
                self.visits += s.visits.is_some() as usize;
            }
        }
        let setup = GameSetup {
            game: 1,
            seed: 4,
            black: "uct:sims=20".into(),
            white: "uct:sims=20".into(),
            black_player: None,
            opening: Vec::new(),
            opening_name: String::new(),
        };
        let rules = GameRules {
            max_moves: 12,
            random_moves: 3,
            ..GameRules::default()
        };
        let build =
            |spec: &str, seed| super::super::player::build_player(spec, seed, Default::default());
        let mut seen = Count {
            moves: Vec::new(),
            visits: 0,
        };
        let g = play_game(&setup, &rules, &build, &mut seen);
        assert_eq!(g.end.reason, EndReason::MoveCap);
        assert_eq!(seen.moves, (3..12).collect::<Vec<u16>>());
        assert_eq!(seen.visits, 9);
    }
}
