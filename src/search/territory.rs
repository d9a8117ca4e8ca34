//! The paper's program before Monte-Carlo (paper E in `docs/papers.md`) as an engine: play a
//! random best territory-gain move ([`crate::board_analysis::choose_best_gain`]), pass when no move
//! gains (engine spec `territory:`). The move generator and its playout policy live in
//! `board_analysis`; this file only puts them behind the [`Engine`] interface.

use std::time::Instant;

use super::engine::{Engine, EngineMove, MoveStats};
use crate::board_analysis::choose_best_gain;
use crate::rules::{Color, Game, IllegalMove, Move};
use crate::util::rng::FastRng;

/// Tunables of the territory player.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct TerritoryConfig {
    /// Seed of the random choice among equally good moves.
    pub seed: u64,
    /// A move must gain at least this much territory to be played; otherwise the player
    /// passes (the playout policy plays a uniform random move instead).
    pub min_gain: i32,
}

impl Default for TerritoryConfig {
    fn default() -> Self {
        TerritoryConfig {
            seed: 1,
            min_gain: 1,
        }
    }
}

/// The territory player: a weak, fast, deterministic-per-seed opponent.
#[derive(Debug, Clone)]
pub struct TerritoryPlayer {
    config: TerritoryConfig,
    game: Game,
    rng: FastRng,
}

impl TerritoryPlayer {
    /// A player with the default configuration and this seed (komi 6.5 until `new_game`).
    pub fn new(seed: u64) -> TerritoryPlayer {
        TerritoryPlayer::with_config(TerritoryConfig {
            seed,
            ..TerritoryConfig::default()
        })
    }

    pub fn with_config(config: TerritoryConfig) -> TerritoryPlayer {
        TerritoryPlayer {
            config,
            game: Game::new(6.5),
            rng: FastRng::new(config.seed),
        }
    }

    pub fn config(&self) -> &TerritoryConfig {
        &self.config
    }
}

impl Engine for TerritoryPlayer {
    fn name(&self) -> String {
        format!("territory:seed={}", self.config.seed)
    }

    fn new_game(&mut self, komi: f32) {
        self.game = Game::new(komi);
    }

    fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        self.game.play_on(color, mv)
    }

    fn genmove(&mut self, color: Color) -> (EngineMove, MoveStats) {
        let start = Instant::now();
        let board = *self.game.board();
        let game = &self.game;
        let mv = choose_best_gain(&board, color, self.config.min_gain, &mut self.rng, |p| {
            game.check(color, Move::Play(p)).is_ok()
        })
        .map_or(Move::Pass, Move::Play);
        // The game may already be over (two passes); a pass then is still the answer.
        let _ = self.game.play_as(color, mv);
        (
            EngineMove::Play(mv),
            MoveStats {
                simulations: 0,
                seconds: start.elapsed().as_secs_f64(),
                winrate: None,
            },
        )
    }

    fn undo(&mut self) -> bool {
        self.game.undo()
    }

    fn game(&self) -> &Game {
        &self.game
    }
    fn set_game(&mut self, game: Game) -> Result<(), String> {
        self.game = game;
        Ok(())
    }
}
