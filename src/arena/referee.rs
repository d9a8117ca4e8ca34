//! The referee: plays one game between two players, checks every move against the rules
//! (positional superko included), and scores the end by area with komi.
//!
//! A player that fails (crash, timeout, garbage, illegal move, refusing a legal move) loses
//! the game; the error is recorded and the match goes on.

use std::time::Instant;

use super::player::{GtpTimeouts, Player, PlayerError, build_player};
use super::record::{EndReason, GameRecord, round_seconds, to_sgf};
use crate::rules::{Color, Game, Move, Scoring};
use crate::search::{Clock, EngineMove, TimeControl};
use crate::util::rng::FastRng;

/// Rules of one game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameRules {
    pub komi: f32,
    /// The game stops after this many moves (passes included) and is counted as it stands.
    pub max_moves: u32,
    /// The clock both sides play under, if any: the referee keeps both clocks, tells each
    /// player its time before every move, and a player whose flag falls loses.
    pub clock: Option<MatchClock>,
}

/// A match's clock: the system and the grace the referee allows each move for its own
/// overhead (process scheduling, pipes) before it counts the move against the clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchClock {
    pub control: TimeControl,
    pub grace: f64,
}

/// What to play: game number, seed, specs and who is who.
#[derive(Debug, Clone)]
pub struct GameSetup {
    pub game: u32,
    pub seed: u64,
    pub black: String,
    pub white: String,
    /// `A` or `B`: which match player has black.
    pub black_player: String,
}

/// A finished game: its CSV row and its SGF text.
#[derive(Debug, Clone)]
pub struct PlayedGame {
    pub record: GameRecord,
    pub sgf: String,
    /// Set when the referee's machine could not run the game (no descriptors, processes
    /// or memory left): the game is nobody's loss and must not be recorded.
    pub referee_fault: Option<String>,
}

/// The per-player seed for `color` in a game seeded with `game_seed`.
pub fn player_seed(game_seed: u64, color: Color) -> u64 {
    FastRng::for_stream(game_seed, color.idx() as u64 + 1).next_u64()
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

/// Builds both players and plays the game.
pub fn play_game(setup: &GameSetup, rules: GameRules, timeouts: GtpTimeouts) -> PlayedGame {
    let wall = Instant::now();
    let mut tally = Tally::default();
    let mut game = Game::new(rules.komi);
    let black = build_player(
        &setup.black,
        player_seed(setup.seed, Color::Black),
        timeouts,
    );
    let white = build_player(
        &setup.white,
        player_seed(setup.seed, Color::White),
        timeouts,
    );
    let mut cpu = [None, None];
    let referee_fault = [&black, &white].iter().find_map(|p| match p {
        Err(e) if e.is_referee_fault() => Some(e.to_string()),
        _ => None,
    });
    let (stop, gtp_score) = match (black, white) {
        (Err(e), _) => (Stop::Failed(Color::Black, e.to_string()), String::new()),
        (_, Err(e)) => (Stop::Failed(Color::White, e.to_string()), String::new()),
        (Ok(b), Ok(w)) => {
            let mut players = [b, w];
            let stop = run_moves(&mut players, &mut game, rules, &mut tally);
            let score = match stop {
                Stop::Counted(_) => ask_final_scores(&mut players),
                _ => String::new(),
            };
            for (c, p) in cpu.iter_mut().zip(&players) {
                *c = p.cpu_seconds().map(round_seconds);
            }
            for p in &mut players {
                p.close();
            }
            (stop, score)
        }
    };
    let mut record = GameRecord {
        game: setup.game,
        black: setup.black.clone(),
        white: setup.white.clone(),
        black_player: setup.black_player.clone(),
        winner: String::new(),
        result: String::new(),
        score: None,
        moves: game.move_count() as u32,
        reason: EndReason::Error,
        black_seconds: round_seconds(tally.seconds[0]),
        white_seconds: round_seconds(tally.seconds[1]),
        black_sims: tally.sims[0],
        white_sims: tally.sims[1],
        wall_seconds: 0.0,
        seed: setup.seed,
        error_by: String::new(),
        error: String::new(),
        gtp_score: gtp_score.clone(),
        score_disagreement: false,
        black_cpu_seconds: cpu[0],
        white_cpu_seconds: cpu[1],
    };
    match stop {
        Stop::Counted(reason) => {
            let margin = game.score(Scoring::Area, 0);
            record.reason = reason;
            record.score = Some(margin);
            record.result = Game::result_text(margin);
            record.winner = winner_text(margin).to_string();
            record.score_disagreement = gtp_score
                .split_whitespace()
                .filter_map(|kv| kv.split_once('=').map(|(_, v)| v))
                .any(|v| gtp_winner(v).is_some_and(|w| w != record.winner));
        }
        Stop::Resigned(loser) => {
            let w = loser.opponent();
            record.reason = EndReason::Resign;
            record.winner = w.letter().to_string();
            record.result = format!("{}+R", w.letter());
        }
        Stop::Flag(loser) => {
            let w = loser.opponent();
            record.reason = EndReason::Time;
            record.winner = w.letter().to_string();
            record.result = format!("{}+T", w.letter());
        }
        Stop::Failed(loser, error) => {
            let w = loser.opponent();
            record.reason = EndReason::Error;
            record.winner = w.letter().to_string();
            record.result = format!("{}+E", w.letter());
            record.error_by = loser.letter().to_string();
            record.error = error;
        }
    }
    record.wall_seconds = round_seconds(wall.elapsed().as_secs_f64());
    let sgf = to_sgf(&record, rules.komi, game.moves());
    PlayedGame {
        record,
        sgf,
        referee_fault,
    }
}

fn winner_text(margin: f32) -> &'static str {
    if margin > 0.0 {
        "B"
    } else if margin < 0.0 {
        "W"
    } else {
        "draw"
    }
}

/// The winner named by a GTP `final_score` answer (`B+3.5`, `W+R`, `0`).
fn gtp_winner(text: &str) -> Option<&'static str> {
    let t = text.trim().to_ascii_uppercase();
    if t.starts_with("B+") {
        Some("B")
    } else if t.starts_with("W+") {
        Some("W")
    } else if t == "0" || t == "DRAW" || t == "JIGO" {
        Some("draw")
    } else {
        None
    }
}

/// Runs the move loop until two passes, a resignation, the move cap or an error.
fn run_moves(
    players: &mut [Box<dyn Player>; 2],
    game: &mut Game,
    rules: GameRules,
    tally: &mut Tally,
) -> Stop {
    for c in [Color::Black, Color::White] {
        let p = &mut players[c.idx()];
        let started = p.new_game(rules.komi).and_then(|()| match rules.clock {
            Some(clock) => p.set_time_control(clock.control),
            None => Ok(()),
        });
        if let Err(e) = started {
            return Stop::Failed(c, e.to_string());
        }
    }
    let mut clocks = rules.clock.map(|mc| [Clock::new(mc.control); 2]);
    while !game.is_over() {
        if game.move_count() as u32 >= rules.max_moves {
            return Stop::Counted(EndReason::MoveCap);
        }
        let c = game.to_move();
        if let Some(clocks) = &clocks {
            let clock = clocks[c.idx()];
            let stones = if clock.overtime { clock.stones } else { 0 };
            if let Err(e) = players[c.idx()].time_left(c, clock.left, stones) {
                return Stop::Failed(c, e.to_string());
            }
        }
        let (mv, stats) = match players[c.idx()].genmove(c) {
            Ok(answer) => answer,
            Err(e) => return Stop::Failed(c, e.to_string()),
        };
        if let (Some(clocks), Some(mc)) = (&mut clocks, rules.clock)
            && clocks[c.idx()].spend((stats.seconds - mc.grace).max(0.0))
        {
            tally.seconds[c.idx()] += stats.seconds;
            return Stop::Flag(c);
        }
        tally.seconds[c.idx()] += stats.seconds;
        tally.sims[c.idx()] += stats.simulations;
        let mv = match mv {
            EngineMove::Resign => return Stop::Resigned(c),
            EngineMove::Play(m) => m,
        };
        if let Err(e) = game.play_as(c, mv) {
            return Stop::Failed(c, format!("illegal move {}: {e}", mv.to_gtp()));
        }
        if let Err(e) = players[c.opponent().idx()].play(c, mv) {
            let e = match e {
                PlayerError::Rejected(why) => {
                    format!("rejected the legal move {}: {why}", fmt_move(c, mv))
                }
                other => other.to_string(),
            };
            return Stop::Failed(c.opponent(), e);
        }
    }
    Stop::Counted(EndReason::Passes)
}

fn fmt_move(c: Color, m: Move) -> String {
    format!("{} {}", c.letter(), m.to_gtp())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_game_is_reproducible_and_scored() {
        let setup = GameSetup {
            game: 1,
            seed: 99,
            black: "random".into(),
            white: "random".into(),
            black_player: "A".into(),
        };
        let rules = GameRules {
            komi: 6.5,
            max_moves: 400,
            clock: None,
        };
        let a = play_game(&setup, rules, GtpTimeouts::default());
        let b = play_game(&setup, rules, GtpTimeouts::default());
        assert_eq!(a.record.without_timing(), b.record.without_timing());
        if crate::util::thread_cpu_seconds().is_some() {
            assert!(a.record.black_cpu_seconds.is_some() && a.record.white_cpu_seconds.is_some());
        }
        assert_eq!(a.sgf, b.sgf);
        assert_eq!(a.record.reason, EndReason::Passes);
        let margin = a.record.score.unwrap();
        assert_eq!(a.record.winner, winner_text(margin));
        assert!(
            a.sgf.contains("PB[random]") && a.sgf.contains(&format!("RE[{}]", a.record.result))
        );
    }

    #[test]
    fn each_side_s_search_cpu_is_recorded() {
        if crate::util::thread_cpu_seconds().is_none() {
            return; // no per-thread CPU clock on this platform
        }
        let setup = GameSetup {
            game: 1,
            seed: 5,
            black: "uct:sims=3000".into(),
            white: "uct:sims=10".into(),
            black_player: "A".into(),
        };
        let rules = GameRules {
            komi: 6.5,
            max_moves: 20,
            clock: None,
        };
        let r = play_game(&setup, rules, GtpTimeouts::default()).record;
        let (b, w) = (r.black_cpu_seconds.unwrap(), r.white_cpu_seconds.unwrap());
        // 300 times the simulations: far more CPU, and never more than the thinking time.
        assert!(b > 5.0 * w, "black {b} s, white {w} s");
        assert!(
            b <= r.black_seconds + 0.05,
            "{b} CPU s in {} s",
            r.black_seconds
        );
    }

    #[test]
    fn move_cap_stops_and_counts() {
        let setup = GameSetup {
            game: 2,
            seed: 5,
            black: "random".into(),
            white: "random".into(),
            black_player: "A".into(),
        };
        let rules = GameRules {
            komi: 6.5,
            max_moves: 10,
            clock: None,
        };
        let g = play_game(&setup, rules, GtpTimeouts::default());
        assert_eq!(g.record.reason, EndReason::MoveCap);
        assert_eq!(g.record.moves, 10);
        assert!(g.record.score.is_some());
    }

    #[test]
    fn reads_gtp_winners() {
        assert_eq!(gtp_winner("B+3.5"), Some("B"));
        assert_eq!(gtp_winner("w+R"), Some("W"));
        assert_eq!(gtp_winner("0"), Some("draw"));
        assert_eq!(gtp_winner("?"), None);
    }
}
