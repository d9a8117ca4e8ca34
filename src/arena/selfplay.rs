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

use super::record::{EndReason, game_sgf, round_seconds};
use super::referee::player_seed;
use crate::dataset::format::encode_any;
use crate::dataset::record::{SearchTarget, VISIT_SLOTS};
use crate::dataset::{NO_POINT, Position};
use crate::rules::score::territories;
use crate::rules::{BOARD, Color, Game, Move, NN, Point, Scoring};
use crate::search::{Engine, EngineMove};
use crate::util::rng::FastRng;

/// How every self-play game is played (the game-independent part of a run's config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRules {
    /// Komi given to white (area scoring).
    pub komi: f32,
    /// Move cap (passes included); a capped game is counted as it stands, with no ownership.
    pub max_moves: u32,
    /// Opening moves drawn uniformly from the candidate moves (no search, no record).
    pub random_moves: u32,
    /// Temperature of the visit-proportional draw (0 = always the engine's choice).
    pub temperature: f64,
    /// Moves after the random opening that are drawn with `temperature`.
    pub temperature_moves: u32,
}

impl Default for GameRules {
    fn default() -> Self {
        GameRules {
            komi: 6.5,
            max_moves: 243,
            random_moves: 0,
            temperature: 1.0,
            temperature_moves: 8,
        }
    }
}

impl GameRules {
    /// Checks the ranges a config file may hold.
    pub fn validate(&self) -> anyhow::Result<()> {
        if !self.komi.is_finite() || self.komi.abs() > 1000.0 {
            bail!("komi {} is not a number from -1000 to 1000", self.komi);
        }
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
}

/// Who plays one game and with which seed.
#[derive(Debug, Clone, PartialEq)]
pub struct GamePlan {
    pub game: u32,
    pub seed: u64,
    pub black: String,
    pub white: String,
}

/// One finished self-play game: a row of `games.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfplayRow {
    pub game: u32,
    pub seed: u64,
    pub black: String,
    pub white: String,
    /// `B`, `W` or `draw`.
    pub winner: String,
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

/// Plays one game of `plan` under `rules`. Fails (and the run stops) when a spec does not
/// build or its engine cannot report root visits: a self-play run has no opponent to award
/// the game to.
pub fn play(plan: &GamePlan, rules: &GameRules) -> anyhow::Result<SelfplayGame> {
    let wall = Instant::now();
    let cpu0 = thread_cpu_seconds();
    let mut engines: Vec<Box<dyn Engine>> = Vec::with_capacity(2);
    for (spec, color) in [(&plan.black, Color::Black), (&plan.white, Color::White)] {
        let mut e = build_selfplay_engine(spec, player_seed(plan.seed, color))?;
        e.new_game(rules.komi);
        engines.push(e);
    }
    let mut rng = FastRng::for_stream(plan.seed, 3);
    let mut game = Game::new(rules.komi);
    let mut positions: Vec<Position> = Vec::new();
    let (mut simulations, mut search_seconds) = (0u64, 0f64);
    let mut reason = EndReason::Passes;
    let mut resigned: Option<Color> = None;
    while !game.is_over() {
        if game.move_count() as u32 >= rules.max_moves {
            reason = EndReason::MoveCap;
            break;
        }
        let color = game.to_move();
        let number = game.move_count() as u32;
        let mv = if number < rules.random_moves {
            random_candidate(&game, color, &mut rng)
        } else {
            let before = position_before(&game, color);
            let analyzer = engines[color.idx()]
                .analyzer()
                .expect("checked when the engine was built");
            let (choice, stats, candidates) = analyzer.genmove_analyze(color, 1);
            simulations += stats.simulations;
            search_seconds += stats.seconds;
            let mut counts = [0u32; VISIT_SLOTS];
            for c in &candidates {
                counts[c.mv.index()] += c.visits;
            }
            let engine_move = match choice {
                EngineMove::Resign => {
                    resigned = Some(color);
                    reason = EndReason::Resign;
                    break;
                }
                EngineMove::Play(m) => m,
            };
            let temperature_phase = number < rules.random_moves + rules.temperature_moves;
            let mv = if temperature_phase && rules.temperature > 0.0 {
                draw_by_visits(&counts, rules.temperature, &mut rng).unwrap_or(engine_move)
            } else {
                engine_move
            };
            if mv != engine_move {
                // The engine has played its own choice: take it back, play the drawn one.
                let e = &mut engines[color.idx()];
                e.undo();
                e.play(color, mv)
                    .map_err(|err| anyhow::anyhow!("drawn move {}: {err}", mv.to_gtp()))?;
            }
            // The game goes on; the engine has the move (searched and played, or replaced).
            game.play_as(color, mv)
                .map_err(|err| anyhow::anyhow!("engine move {}: {err}", mv.to_gtp()))?;
            engines[color.opponent().idx()]
                .play(color, mv)
                .map_err(|err| anyhow::anyhow!("move {}: {err}", mv.to_gtp()))?;
            if counts.iter().all(|&c| c == 0) {
                // A move made without a search (a pass the count already wins): no record.
                continue;
            }
            let mut p = before;
            p.played = mv.index() as u8;
            p.search = Some(Box::new(SearchTarget {
                visits: SearchTarget::visits_from(&counts),
                value: stats.winrate.map_or(f32::NAN, |w| w.clamp(0.0, 1.0)),
                simulations: stats.simulations.min(u32::MAX as u64) as u32,
                ownership: None,
                score: f32::NAN,
            }));
            positions.push(p);
            continue;
        };
        game.play_as(color, mv)
            .map_err(|err| anyhow::anyhow!("opening move {}: {err}", mv.to_gtp()))?;
        for e in &mut engines {
            e.play(color, mv)
                .map_err(|err| anyhow::anyhow!("opening move {}: {err}", mv.to_gtp()))?;
        }
    }
    let (winner, result, score, ownership) = match resigned {
        Some(loser) => {
            let w = loser.opponent().letter();
            (w.to_string(), format!("{w}+R"), None, None)
        }
        None => {
            let margin = game.score(Scoring::Area, 0);
            let winner = if margin > 0.0 {
                "B"
            } else if margin < 0.0 {
                "W"
            } else {
                "draw"
            };
            let own = (reason == EndReason::Passes).then(|| final_ownership(&game));
            (
                winner.to_string(),
                Game::result_text(margin),
                Some(margin),
                own,
            )
        }
    };
    let winner_code = match winner.as_str() {
        "B" => 1,
        "W" => 2,
        _ => 0,
    };
    let mut records = Vec::with_capacity(positions.len() * 240);
    for p in &mut positions {
        p.winner = winner_code;
        if let Some(t) = p.search.as_mut() {
            t.ownership = ownership;
            t.score = score.unwrap_or(f32::NAN);
        }
        records.extend_from_slice(&encode_any(p));
    }
    let row = SelfplayRow {
        game: plan.game,
        seed: plan.seed,
        black: plan.black.clone(),
        white: plan.white.clone(),
        winner,
        result,
        score,
        reason,
        moves: game.move_count() as u32,
        positions: positions.len() as u32,
        simulations,
        search_seconds: round_seconds(search_seconds),
        cpu_seconds: round_seconds(thread_cpu_seconds() - cpu0),
        wall_seconds: round_seconds(wall.elapsed().as_secs_f64()),
        crc32: crc32fast::hash(&records),
    };
    let sgf = to_sgf(&row, rules, game.moves());
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
    }
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
    fn a_game_records_every_searched_move_and_replays_from_its_seed() {
        let plan = GamePlan {
            game: 1,
            seed: 99,
            black: "uct:sims=40".into(),
            white: "uct:sims=40".into(),
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
            };
            let rules = GameRules {
                komi,
                max_moves: 24,
                ..GameRules::default()
            };
            let g = play(&plan, &rules).unwrap();
            assert_eq!(g.row.winner, winner.letter().to_string());
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
    /// own records average above one half and the loser's below.
    #[test]
    fn near_the_end_the_winner_s_records_value_its_position_above_one_half() {
        let plan = GamePlan {
            game: 1,
            seed: 11,
            black: "uct:sims=200".into(),
            white: "uct:sims=200".into(),
        };
        let g = play(&plan, &GameRules::default()).unwrap();
        let winner = match g.row.winner.as_str() {
            "B" => Color::Black,
            "W" => Color::White,
            w => panic!("a seeded game with komi 6.5 has a winner, not {w}"),
        };
        let recs = records(&g);
        let end = &recs[recs.len().saturating_sub(10)..];
        let mean = |c: Color| {
            let vals: Vec<f32> = end
                .iter()
                .filter(|p| p.color() == c)
                .map(|p| p.search.as_ref().unwrap().value)
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
        };
        let err = play(&plan, &GameRules::default()).unwrap_err();
        assert!(format!("{err:#}").contains("root visits"), "{err:#}");
    }
}
