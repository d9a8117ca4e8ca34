//! Self-play: an engine plays itself (or a pool of specs plays round robin) and every move it
//! searched becomes a training record with the search's view: the root's visits at every
//! point and pass, its value and simulations, and, once the game is over, its result, final
//! area margin and each point's owner ([`SearchTarget`]).
//!
//! Diversity, as self-play loops need it (minigo and KataGo do the same):
//! - `random_moves`: the first moves of every game are drawn uniformly from the candidate
//!   moves (legal, not filling an own eye) and are not training records (no search ran);
//! - `temperature` for the next `temperature_moves` moves: the move played is drawn with
//!   probability proportional to `visits^(1/temperature)`; after them the engine's own
//!   choice (its most visited move) is played.
//!
//! A game is a pure function of its seed: engine seeds, opening and temperature draws all
//! come from streams of it, so same seed + one-thread engines = the same game.

use std::time::Instant;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::game::{GameObserver, MoveSearch, Winner, play_game};
pub use super::game::{GameRules, GameSetup, draw_by_visits};
use super::player::{InProcess, Player, PlayerError};
use super::record::{EndReason, game_sgf, round_seconds};
use crate::dataset::format::encode_any;
use crate::dataset::record::SearchTarget;
use crate::dataset::{NO_POINT, Position};
use crate::rules::score::territories;
use crate::rules::{Color, Game, Move, NN};
use crate::search::Engine;

/// Who plays one self-play game and with which seed (no `A`/`B` labels).
pub type GamePlan = GameSetup;

/// One finished self-play game: a row of `games.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfplayRow {
    pub game: u32,
    pub seed: u64,
    pub black: String,
    pub white: String,
    /// `B`, `W` or `draw`.
    pub winner: Winner,
    /// SGF-style result (`B+3.5`, `W+R`).
    pub result: String,
    /// Black's area margin with komi, when the game was counted.
    pub score: Option<f32>,
    pub reason: EndReason,
    /// Moves played, passes and random opening moves included.
    pub moves: u32,
    /// Training records written (one per searched move; a move made without a search, such
    /// as a pass the area count already wins, has none).
    pub positions: u32,
    /// Simulations of both sides.
    pub simulations: u64,
    /// Seconds both sides spent searching.
    pub search_seconds: f64,
    /// CPU seconds of the thread that played the game: both engines' whole cost when they
    /// search on one thread (0 where the platform does not say).
    pub cpu_seconds: f64,
    /// Wall seconds of the whole game.
    pub wall_seconds: f64,
    /// CRC-32 of the game's records file.
    pub crc32: u32,
}

impl SelfplayRow {
    /// The row with every timing column zeroed: what two runs with the same seed share.
    pub fn without_timing(&self) -> SelfplayRow {
        SelfplayRow {
            search_seconds: 0.0,
            cpu_seconds: 0.0,
            wall_seconds: 0.0,
            ..self.clone()
        }
    }
}

/// A finished game: its row, its SGF and its records (format version 2, concatenated).
#[derive(Debug, Clone)]
pub struct SelfplayGame {
    pub row: SelfplayRow,
    pub sgf: String,
    pub records: Vec<u8>,
}

/// CPU seconds this thread has used (0 where the platform does not say).
fn thread_cpu_seconds() -> f64 {
    crate::util::thread_cpu_seconds().unwrap_or(0.0)
}

/// The engine of `spec`, refused when it cannot report root visits (self-play records them).
pub fn build_selfplay_engine(spec: &str, seed: u64) -> anyhow::Result<Box<dyn Engine>> {
    let mut e = crate::search::spec::build_engine(spec, seed)
        .with_context(|| format!("self-play engine {spec:?}"))?;
    if e.analyzer().is_none() {
        bail!(
            "self-play engine {spec:?} does not report its root visits: use a uct: spec \
             or a preset (strong, strong2, strong3)"
        );
    }
    Ok(e)
}

/// Self-play's observer: the record of every searched move with the search's view (root
/// visits, value, simulations), completed with the result once the game is over.
#[derive(Default)]
pub struct SearchRecorder {
    positions: Vec<Position>,
}

impl GameObserver for SearchRecorder {
    fn wants_visits(&self) -> bool {
        true
    }

    fn on_move(&mut self, game: &Game, color: Color, played: Move, search: &MoveSearch<'_>) {
        let Some(visits) = search.visits.filter(|v| v.iter().any(|&c| c > 0)) else {
            // A move made without a search (a pass the count already wins): no record.
            return;
        };
        let mut p = position_before(game, color);
        p.played = played.index() as u8;
        p.search = Some(Box::new(SearchTarget {
            visits: SearchTarget::visits_from(visits),
            value: search.stats.winrate.map_or(f32::NAN, |w| w.clamp(0.0, 1.0)),
            simulations: search.stats.simulations.min(u32::MAX as u64) as u32,
            ownership: None,
            score: f32::NAN,
        }));
        self.positions.push(p);
    }
}

impl SearchRecorder {
    /// The record count and the records (format version 2, concatenated) of a game that
    /// ended with `winner_code` (a record's winner byte), black's margin `score` and the
    /// final `ownership`.
    fn finish(
        mut self,
        winner_code: u8,
        score: Option<f32>,
        ownership: Option<[u8; NN]>,
    ) -> (u32, Vec<u8>) {
        let mut records = Vec::with_capacity(self.positions.len() * 240);
        for p in &mut self.positions {
            p.winner = winner_code;
            if let Some(t) = p.search.as_mut() {
                t.ownership = ownership;
                t.score = score.unwrap_or(f32::NAN);
            }
            records.extend_from_slice(&encode_any(p));
        }
        (self.positions.len() as u32, records)
    }
}

/// A self-play player: an engine of `spec` that reports its root visits.
fn selfplay_player(spec: &str, seed: u64) -> Result<Box<dyn Player>, PlayerError> {
    let engine =
        build_selfplay_engine(spec, seed).map_err(|e| PlayerError::Build(format!("{e:#}")))?;
    Ok(Box::new(InProcess::new(spec, engine)))
}

/// Plays one game of `plan` under `rules` through the arena's game runner, recording every
/// searched move. Fails (and the run stops) when a spec does not build, its engine cannot
/// report root visits, or a move fails: a self-play run has no opponent to award the game to.
pub fn play(plan: &GamePlan, rules: &GameRules) -> anyhow::Result<SelfplayGame> {
    let wall = Instant::now();
    let cpu0 = thread_cpu_seconds();
    let mut recorder = SearchRecorder::default();
    let played = play_game(plan, rules, &selfplay_player, &mut recorder);
    let end = played.end;
    if let Some((color, error)) = end.error {
        bail!("self-play game {} ({}): {error}", plan.game, color.letter());
    }
    let ownership = (end.reason == EndReason::Passes).then(|| final_ownership(&played.game));
    let (positions, records) = recorder.finish(end.winner.code(), end.score, ownership);
    let row = SelfplayRow {
        game: plan.game,
        seed: plan.seed,
        black: plan.black.clone(),
        white: plan.white.clone(),
        winner: end.winner,
        result: end.result,
        score: end.score,
        reason: end.reason,
        moves: played.game.move_count() as u32,
        positions,
        simulations: played.sims.iter().sum(),
        search_seconds: round_seconds(played.seconds.iter().sum()),
        cpu_seconds: round_seconds(thread_cpu_seconds() - cpu0),
        wall_seconds: round_seconds(wall.elapsed().as_secs_f64()),
        crc32: crc32fast::hash(&records),
    };
    let sgf = to_sgf(&row, rules, played.game.moves());
    Ok(SelfplayGame { row, sgf, records })
}

/// The record of the position `color` is about to move in (the caller fills in the played
/// move and the search data).
fn position_before(game: &Game, color: Color) -> Position {
    let board = game.board();
    let mut last = [NO_POINT; 4];
    for (slot, (_, m)) in last.iter_mut().zip(game.moves().iter().rev()) {
        *slot = m.index() as u8;
    }
    Position {
        cells: *board.cells(),
        to_move: color as u8,
        played: 0,
        move_number: game.move_count().min(u16::MAX as usize) as u16,
        last_moves: last,
        ko: board.ko_point().map_or(NO_POINT, |k| k.index() as u8),
        winner: 0,
        black_rank: i8::MIN,
        white_rank: i8::MIN,
        game: 0,
        search: None,
        teacher: None,
    }
}

/// Each point's owner under area scoring at the end: its stone's colour, or the colour whose
/// stones alone an empty region reaches (0 for dame and regions both reach).
pub fn final_ownership(game: &Game) -> [u8; NN] {
    let board = game.board();
    let (tb, tw) = territories(board, 0);
    let black = board.stones(Color::Black) | tb;
    let white = board.stones(Color::White) | tw;
    let mut own = [0u8; NN];
    for (i, o) in own.iter_mut().enumerate() {
        if black >> i & 1 == 1 {
            *o = 1;
        } else if white >> i & 1 == 1 {
            *o = 2;
        }
    }
    own
}

/// The SGF of a self-play game: specs, komi, result, seed and the diversity settings.
fn to_sgf(row: &SelfplayRow, rules: &GameRules, moves: &[(Color, Move)]) -> String {
    let comment = format!(
        "akushu self-play game {}; seed {}; ended by {}; random_moves {}, temperature {} for {} moves",
        row.game,
        row.seed,
        row.reason.name(),
        rules.random_moves,
        rules.temperature,
        rules.temperature_moves
    );
    game_sgf(
        rules.komi,
        [&row.black, &row.white],
        &row.result,
        &format!("self-play {}", row.game),
        &comment,
        moves,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Point;

    #[test]
    fn a_game_records_every_searched_move_and_replays_from_its_seed() {
        let plan = GamePlan {
            game: 1,
            seed: 99,
            black: "uct:sims=40".into(),
            white: "uct:sims=40".into(),
            black_player: None,
            opening: Vec::new(),
            opening_name: String::new(),
        };
        let rules = GameRules {
            random_moves: 2,
            temperature_moves: 4,
            ..GameRules::default()
        };
        let a = play(&plan, &rules).unwrap();
        let b = play(&plan, &rules).unwrap();
        assert_eq!(a.records, b.records);
        assert_eq!(a.row.without_timing(), b.row.without_timing());
        assert!(a.row.positions <= a.row.moves - 2 && a.row.positions + 6 >= a.row.moves);
        assert_eq!(a.records.len(), a.row.positions as usize * 240);
        let first = crate::dataset::format::decode(&a.records[..240]).unwrap();
        let t = first.search.as_ref().unwrap();
        assert_eq!(first.move_number, 2);
        assert!(t.total_visits() > 0 && t.total_visits() <= 40);
        assert!(t.visits[first.played as usize] > 0);
        if a.row.reason == EndReason::Passes {
            let own = t.ownership.unwrap();
            let black = own.iter().filter(|&&o| o == 1).count() as f32;
            let white = own.iter().filter(|&&o| o == 2).count() as f32;
            assert_eq!(black - white - rules.komi, a.row.score.unwrap());
        }
        let other = play(&GamePlan { seed: 100, ..plan }, &rules).unwrap();
        assert_ne!(other.records, a.records);
    }

    /// The records of a finished game, decoded.
    fn records(g: &SelfplayGame) -> Vec<Position> {
        g.records
            .chunks(crate::dataset::format::SEARCH_RECORD_SIZE)
            .map(|r| crate::dataset::format::decode(r).unwrap())
            .collect()
    }

    /// A record's value is the root's win rate for the side to move. Under a komi of 100
    /// (or -100) no board result changes the winner, so every position is decided: the
    /// winner's records read 1 (or near it) and the loser's 0, whichever colour won. The
    /// move cap ends the game before the passes would.
    #[test]
    fn a_decided_position_s_value_is_near_one_for_the_winner_to_move() {
        for (komi, winner) in [(100.0, Color::White), (-100.0, Color::Black)] {
            let plan = GamePlan {
                game: 1,
                seed: 5,
                black: "uct:sims=30".into(),
                white: "uct:sims=30".into(),
                black_player: None,
                opening: Vec::new(),
                opening_name: String::new(),
            };
            let rules = GameRules {
                komi,
                max_moves: 24,
                ..GameRules::default()
            };
            let g = play(&plan, &rules).unwrap();
            assert_eq!(g.row.winner, Winner::from(winner));
            let recs = records(&g);
            assert!(recs.len() >= 20, "{} records", recs.len());
            for p in &recs {
                let v = p.search.as_ref().unwrap().value;
                if p.color() == winner {
                    assert!(v > 0.95, "komi {komi}: move {}: {v}", p.move_number);
                } else {
                    assert!(v < 0.05, "komi {komi}: move {}: {v}", p.move_number);
                }
            }
        }
    }

    /// Over a seeded game between equal engines, the values near the end (the last ten
    /// records, when the game is nearly decided) favour the eventual winner: the winner's
    /// own searched records average above one half and the loser's below.
    #[test]
    fn near_the_end_the_winner_s_records_value_its_position_above_one_half() {
        let plan = GamePlan {
            game: 1,
            seed: 11,
            black: "uct:sims=200".into(),
            white: "uct:sims=200".into(),
            black_player: None,
            opening: Vec::new(),
            opening_name: String::new(),
        };
        let g = play(&plan, &GameRules::default()).unwrap();
        let winner = match g.row.winner {
            Winner::Black => Color::Black,
            Winner::White => Color::White,
            w => panic!("a seeded game with komi 6.5 has a winner, not {w}"),
        };
        let recs = records(&g);
        let end = &recs[recs.len().saturating_sub(10)..];
        let mean = |c: Color| {
            let vals: Vec<f32> = end
                .iter()
                .filter(|p| p.color() == c)
                .map(|p| p.search.as_ref().unwrap().value)
                // A pass answering a pass while ahead is decided without a search and
                // carries no value (NaN).
                .filter(|v| !v.is_nan())
                .collect();
            assert!(vals.len() >= 4, "{c:?}: {vals:?}");
            vals.iter().sum::<f32>() / vals.len() as f32
        };
        let (won, lost) = (mean(winner), mean(winner.opponent()));
        assert!(won > 0.5, "winner {winner:?}: {won}");
        assert!(lost < 0.5, "loser: {lost}");
    }

    /// A game the move cap ended is counted (a score, the area margin with komi) but has no
    /// final owners: its stones need not be settled, so no record claims ownership.
    #[test]
    fn a_capped_game_is_scored_without_ownership() {
        let plan = GamePlan {
            game: 1,
            seed: 3,
            black: "uct:sims=20".into(),
            white: "uct:sims=20".into(),
            black_player: None,
            opening: Vec::new(),
            opening_name: String::new(),
        };
        let rules = GameRules {
            max_moves: 30,
            ..GameRules::default()
        };
        let g = play(&plan, &rules).unwrap();
        assert_eq!(g.row.reason, EndReason::MoveCap);
        let score = g.row.score.expect("a capped game is counted");
        let recs = records(&g);
        assert_eq!(recs.len(), 30);
        for p in &recs {
            let t = p.search.as_ref().unwrap();
            assert_eq!(t.ownership, None, "move {}", p.move_number);
            assert_eq!(t.score, score);
        }
    }

    /// `final_ownership`'s colours: 1 for black's stones and the empty points only black
    /// reaches, 2 for white's, 0 for dame. Black walls column D and white column F: A-D are
    /// black's, F-J white's and column E, reached by both, nobody's.
    #[test]
    fn final_owners_are_one_for_black_two_for_white_and_zero_for_dame() {
        let mut game = Game::new(6.5);
        for row in 1..=9 {
            for (color, col) in [(Color::Black, 'D'), (Color::White, 'F')] {
                let mv = Move::from_gtp(&format!("{col}{row}")).unwrap();
                game.play_as(color, mv).unwrap();
            }
        }
        let own = final_ownership(&game);
        for (i, &o) in own.iter().enumerate() {
            let col = Point::new(i).col();
            let want = match col {
                0..=3 => 1,
                4 => 0,
                _ => 2,
            };
            assert_eq!(
                o,
                want,
                "point {} (column {col})",
                Move::from_index(i).unwrap().to_gtp()
            );
        }
    }

    #[test]
    fn engines_without_root_visits_are_refused() {
        let plan = GamePlan {
            game: 1,
            seed: 1,
            black: "random".into(),
            white: "uct:sims=10".into(),
            black_player: None,
            opening: Vec::new(),
            opening_name: String::new(),
        };
        let err = play(&plan, &GameRules::default()).unwrap_err();
        assert!(format!("{err:#}").contains("root visits"), "{err:#}");
    }
}
