//! The referee of a match: plays one game through the arena's game runner
//! ([`super::game::play_game`]) with players built from any spec (GTP engines included) and
//! turns it into the match's CSV row and SGF.
//!
//! A player that fails (crash, timeout, garbage, illegal move, refusing a legal move) loses
//! the game; the error is recorded and the match goes on.

use std::time::Instant;

pub use super::game::{GameRules, GameSetup, MatchClock, player_seed};
use super::game::{NoObserver, Winner, play_game};
use super::player::{GtpTimeouts, build_player};
use super::record::{GameRecord, round_seconds, to_sgf};

/// A finished game: its CSV row and its SGF text.
#[derive(Debug, Clone)]
pub struct RefereedGame {
    pub record: GameRecord,
    pub sgf: String,
    /// Set when the referee's machine could not run the game (no descriptors, processes
    /// or memory left): the game is nobody's loss and must not be recorded.
    pub referee_fault: Option<String>,
    /// Set when a side lost on time on a move its engine got almost no CPU for: the
    /// machine's loss, not the engine's; the match replays the game.
    pub starved: Option<String>,
}

/// Builds both players and plays the game of a match.
pub fn referee_game(setup: &GameSetup, rules: &GameRules, timeouts: GtpTimeouts) -> RefereedGame {
    let wall = Instant::now();
    let build = |spec: &str, seed| build_player(spec, seed, timeouts);
    let played = play_game(setup, rules, &build, &mut NoObserver);
    let end = &played.end;
    let (error_by, error) = match &end.error {
        Some((c, e)) => (c.letter().to_string(), e.clone()),
        None => (String::new(), String::new()),
    };
    // A GTP engine's own count naming another winner than the board's (counted games only).
    let score_disagreement = end.score.is_some()
        && played
            .gtp_score
            .split_whitespace()
            .filter_map(|kv| kv.split_once('=').map(|(_, v)| v))
            .any(|v| Winner::from_gtp_score(v).is_some_and(|w| w != end.winner));
    let record = GameRecord {
        game: setup.game,
        black: setup.black.clone(),
        white: setup.white.clone(),
        black_player: setup
            .black_player
            .expect("a match game names the player with black"),
        winner: end.winner,
        result: end.result.clone(),
        score: end.score,
        moves: played.game.move_count() as u32,
        reason: end.reason,
        black_seconds: round_seconds(played.seconds[0]),
        white_seconds: round_seconds(played.seconds[1]),
        black_sims: super::record::reported_sims(&setup.black, played.sims[0]),
        white_sims: super::record::reported_sims(&setup.white, played.sims[1]),
        wall_seconds: round_seconds(wall.elapsed().as_secs_f64()),
        seed: setup.seed,
        error_by,
        error,
        gtp_score: played.gtp_score.clone(),
        score_disagreement,
        black_cpu_seconds: played.cpu[0].map(round_seconds),
        white_cpu_seconds: played.cpu[1].map(round_seconds),
    };
    let opening =
        (!setup.opening.is_empty()).then_some((setup.opening.len(), setup.opening_name.as_str()));
    let sgf = to_sgf(&record, rules.komi, played.game.moves(), opening);
    RefereedGame {
        record,
        sgf,
        referee_fault: played.referee_fault,
        starved: played.starved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::record::EndReason;

    #[test]
    fn random_game_is_reproducible_and_scored() {
        let setup = GameSetup {
            game: 1,
            seed: 99,
            black: "random".into(),
            white: "random".into(),
            black_player: Some(super::super::game::Side::A),
            opening: Vec::new(),
            opening_name: String::new(),
        };
        let rules = GameRules::plain(6.5, 400, None);
        let a = referee_game(&setup, &rules, GtpTimeouts::default());
        let b = referee_game(&setup, &rules, GtpTimeouts::default());
        assert_eq!(a.record.without_timing(), b.record.without_timing());
        if crate::util::thread_cpu_seconds().is_some() {
            assert!(a.record.black_cpu_seconds.is_some() && a.record.white_cpu_seconds.is_some());
        }
        assert_eq!(a.sgf, b.sgf);
        assert_eq!(a.record.reason, EndReason::Passes);
        let margin = a.record.score.unwrap();
        assert_eq!(a.record.winner, Winner::of_margin(margin));
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
            black_player: Some(super::super::game::Side::A),
            opening: Vec::new(),
            opening_name: String::new(),
        };
        let rules = GameRules::plain(6.5, 20, None);
        let r = referee_game(&setup, &rules, GtpTimeouts::default()).record;
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
            black_player: Some(super::super::game::Side::A),
            opening: Vec::new(),
            opening_name: String::new(),
        };
        let rules = GameRules::plain(6.5, 10, None);
        let g = referee_game(&setup, &rules, GtpTimeouts::default());
        assert_eq!(g.record.reason, EndReason::MoveCap);
        assert_eq!(g.record.moves, 10);
        assert!(g.record.score.is_some());
    }
}
