//! `random`: a seeded uniform random legal mover. It is the arena's tiny test engine (fast,
//! deterministic for a seed) and a floor for any strength table.
//!
//! Spec: `random` or `random:delay_ms=N` (sleeps N ms per move, so tests can interrupt a
//! match in the middle), and `seed=S`, a seed of its own instead of the game's (every game
//! then starts from the same random stream: a deterministic engine that replays one game
//! from one position, what tests of repeated games need); parsed by [`super::spec`].

use std::time::{Duration, Instant};

use super::engine::{Engine, EngineMove, MoveStats};
use crate::rules::{Bits, Color, Game, IllegalMove, Move, NN};
use crate::util::rng::FastRng;

/// Tunables of the random mover.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RandomConfig {
    /// Milliseconds to sleep before each move (0 = answer at once).
    pub delay_ms: u64,
    /// The engine's own seed, used instead of the game's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// Plays a uniformly random legal move that does not fill its own eye; passes when none is
/// left. Positional superko is respected.
pub struct RandomEngine {
    config: RandomConfig,
    game: Game,
    rng: FastRng,
}

impl RandomEngine {
    pub fn new(config: RandomConfig, seed: u64) -> RandomEngine {
        let seed = config.seed.unwrap_or(seed);
        RandomEngine {
            config,
            game: Game::new(6.5),
            rng: FastRng::new(seed),
        }
    }

    /// The move the engine would play for `color` (not played).
    fn choose(&mut self, color: Color) -> Move {
        let all: Bits = (1u128 << NN) - 1;
        let mut allowed = all;
        loop {
            let mut board = *self.game.board();
            let Some(p) = board.random_move(color, allowed, &mut self.rng) else {
                return Move::Pass;
            };
            if self.game.check(color, Move::Play(p)).is_ok() {
                return Move::Play(p);
            }
            // Only superko can refuse a point the board accepted: drop it and draw again.
            allowed &= !crate::rules::bit(p.index());
        }
    }
}

impl Engine for RandomEngine {
    fn name(&self) -> String {
        let mut keys = Vec::new();
        if self.config.delay_ms != 0 {
            keys.push(format!("delay_ms={}", self.config.delay_ms));
        }
        if let Some(s) = self.config.seed {
            keys.push(format!("seed={s}"));
        }
        if keys.is_empty() {
            "random".to_string()
        } else {
            format!("random:{}", keys.join(","))
        }
    }

    fn new_game(&mut self, komi: f32) {
        self.game = Game::new(komi);
    }

    fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        self.game.play_on(color, mv)
    }

    fn genmove(&mut self, color: Color) -> (EngineMove, MoveStats) {
        let start = Instant::now();
        if self.config.delay_ms > 0 {
            std::thread::sleep(Duration::from_millis(self.config.delay_ms));
        }
        let mv = self.choose(color);
        self.game
            .play_as(color, mv)
            .expect("the random mover only picks legal moves");
        let stats = MoveStats {
            simulations: 0,
            seconds: start.elapsed().as_secs_f64(),
            winrate: None,
        };
        (EngineMove::Play(mv), stats)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays a whole self-play game; returns the moves.
    fn self_play(seed: u64) -> Vec<(Color, Move)> {
        let mut e = RandomEngine::new(RandomConfig::default(), seed);
        e.new_game(6.5);
        while !e.game().is_over() && e.game().move_count() < 400 {
            let c = e.game().to_move();
            e.genmove(c);
        }
        e.game().moves().to_vec()
    }

    #[test]
    fn same_seed_same_game_and_games_end() {
        let a = self_play(3);
        assert_eq!(a, self_play(3));
        assert_ne!(a, self_play(4));
        assert!(a.len() < 400, "random self-play ends by two passes");
    }
}
