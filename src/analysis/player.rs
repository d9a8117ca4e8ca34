//! The paper's program before Monte-Carlo (paper E in `docs/papers.md`): play a random best territory-gain
//! move, pass when no move gains. [`TerritoryPlayer`] is that player behind the
//! [`Engine`] interface (engine spec `territory:`); [`TerritoryPlayout`] is the same move
//! generator as a playout policy (`uct:playout=territory`), which falls back to a uniform
//! random move instead of passing so that playouts still reach the end of the game.

use std::time::Instant;

use super::candidates::territory_gains;
use crate::playout::PlayoutPolicy;
use crate::rules::{BOARD, Board, Color, Game, IllegalMove, Move, Point};
use crate::search::engine::{Engine, EngineMove, MoveStats};
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

/// Picks uniformly among the legal best-gain moves that `allowed` accepts; `None` when the
/// best gain is below `min_gain`.
fn choose_best(
    board: &Board,
    color: Color,
    min_gain: i32,
    rng: &mut FastRng,
    mut allowed: impl FnMut(Point) -> bool,
) -> Option<Point> {
    let gains = territory_gains(board, color);
    let best = gains
        .iter()
        .filter(|m| allowed(m.point))
        .map(|m| m.gain)
        .max()?;
    if best < min_gain {
        return None;
    }
    let top: Vec<Point> = gains
        .iter()
        .filter(|m| m.gain == best && allowed(m.point))
        .map(|m| m.point)
        .collect();
    Some(top[rng.below(top.len() as u32) as usize])
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
        self.game.play_as(color, mv)
    }

    fn genmove(&mut self, color: Color) -> (EngineMove, MoveStats) {
        let start = Instant::now();
        let board = *self.game.board();
        let game = &self.game;
        let mv = choose_best(&board, color, self.config.min_gain, &mut self.rng, |p| {
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

/// Territory-gain playouts: a random best-gain move while some move gains, otherwise a
/// uniform random legal non-eye move (so that playouts end with two passes as usual).
#[derive(Debug, Clone, Copy, Default)]
pub struct TerritoryPlayout {
    /// Minimum gain for the informed move (1 = the paper's rule).
    pub min_gain: i32,
}

impl TerritoryPlayout {
    pub fn new() -> TerritoryPlayout {
        TerritoryPlayout { min_gain: 1 }
    }
}

impl PlayoutPolicy for TerritoryPlayout {
    fn choose(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point> {
        let min_gain = self.min_gain.max(1);
        choose_best(board, color, min_gain, rng, |_| true)
            .or_else(|| board.random_move(color, BOARD, rng))
    }
}
