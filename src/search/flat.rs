//! Flat Monte-Carlo with UCB ("Moskit", paper D in `docs/papers.md`): no tree. Every candidate move is tried
//! once, then the move with the highest `UCB(i) = W_i + c * sqrt(ln N / n_i)` (W_i its win
//! rate, n_i its simulations, N all simulations) gets the next playout; after the budget the
//! most visited move is played.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use crate::playout::{self, PlayoutConfig, Uniform};
use crate::rules::{BitIter, Color, Game, IllegalMove, Move, Point, score};
use crate::util::rng::FastRng;

use super::engine::{Engine, EngineMove, MoveStats};

/// Every tunable of the flat UCB engine. Defaults are section D's.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct FlatConfig {
    /// Simulations (playouts) per move.
    pub sims: u32,
    /// Exploration constant c of the UCB formula (0.4 in the paper).
    pub c: f32,
    /// Resign when the chosen move's win rate is below this (0 = never).
    pub resign: f32,
    /// Pass after the opponent passed when the area count already wins.
    pub pass_when_ahead: bool,
    /// Playout length cap in moves.
    pub playout_moves: u32,
}

impl Default for FlatConfig {
    fn default() -> Self {
        FlatConfig {
            sims: 100_000,
            c: 0.4,
            resign: 0.0,
            pass_when_ahead: true,
            playout_moves: PlayoutConfig::default().max_moves,
        }
    }
}

/// UCB1 bandit state over `k` arms with rewards in [0, 1].
#[derive(Debug, Clone)]
pub struct Ucb1 {
    pub c: f64,
    pub counts: Vec<u32>,
    pub wins: Vec<f64>,
    pub total: u64,
}

impl Ucb1 {
    pub fn new(arms: usize, c: f64) -> Ucb1 {
        Ucb1 {
            c,
            counts: vec![0; arms],
            wins: vec![0.0; arms],
            total: 0,
        }
    }

    /// The arm to pull next: the first untried arm, else the highest UCB value (ties to the
    /// lower index).
    pub fn select(&self) -> usize {
        if let Some(i) = self.counts.iter().position(|&n| n == 0) {
            return i;
        }
        let ln_n = (self.total as f64).ln();
        let mut best = 0;
        let mut best_value = f64::NEG_INFINITY;
        for (i, (&n, &w)) in self.counts.iter().zip(&self.wins).enumerate() {
            let value = w / n as f64 + self.c * (ln_n / n as f64).sqrt();
            if value > best_value {
                best = i;
                best_value = value;
            }
        }
        best
    }

    pub fn update(&mut self, arm: usize, reward: f64) {
        self.counts[arm] += 1;
        self.wins[arm] += reward;
        self.total += 1;
    }

    /// The most pulled arm (ties to the higher win count, then the lower index).
    pub fn most_visited(&self) -> Option<usize> {
        (0..self.counts.len()).max_by(|&a, &b| {
            self.counts[a]
                .cmp(&self.counts[b])
                .then(self.wins[a].total_cmp(&self.wins[b]))
                .then(b.cmp(&a))
        })
    }
}

/// The flat UCB engine.
pub struct FlatEngine {
    config: FlatConfig,
    name: String,
    game: Game,
    rng: FastRng,
    /// Seconds a move's search may take at most ([`Engine::set_move_cap`]).
    move_cap: Option<f64>,
    /// Set from outside to end the search at its next check ([`Engine::set_stop`]).
    stop: Option<Arc<AtomicBool>>,
}

/// Simulations between two reads of the clock and the stop flag.
const CHECK_EVERY: u32 = 64;

// `FlatConfig::validate` lives in `spec.rs`, beside the key tables whose ranges it checks:
// this file sits below `spec` in the search layer's file order.

impl FlatEngine {
    /// Builds the engine; fails when the config is out of range ([`FlatConfig::validate`]).
    pub fn new(config: FlatConfig, seed: u64) -> anyhow::Result<FlatEngine> {
        config.validate()?;
        Ok(FlatEngine {
            name: format!("flat:sims={},c={}", config.sims, config.c),
            config,
            game: Game::new(6.5),
            rng: FastRng::for_stream(seed, 0),
            move_cap: None,
            stop: None,
        })
    }

    /// Sets the name reported by [`Engine::name`].
    pub fn with_name(mut self, name: impl Into<String>) -> FlatEngine {
        self.name = name.into();
        self
    }

    pub fn config(&self) -> &FlatConfig {
        &self.config
    }

    fn decide(&mut self, color: Color) -> (EngineMove, MoveStats) {
        let start = Instant::now();
        let mut stats = MoveStats::default();
        if self.game.is_over() {
            return (EngineMove::Play(Move::Pass), stats);
        }
        let board = *self.game.board();
        if self.config.pass_when_ahead
            && self.game.last_move() == Some((color.opponent(), Move::Pass))
        {
            let margin = score::area_margin(&board, self.game.komi());
            if (margin > 0.0) == (color == Color::Black) && margin != 0.0 {
                return (EngineMove::Play(Move::Pass), stats);
            }
        }
        let candidates: Vec<Point> = BitIter(board.empty_bits())
            .map(Point::new)
            .filter(|&p| !board.is_eye(color, p) && self.game.check(color, Move::Play(p)).is_ok())
            .collect();
        if candidates.is_empty() {
            return (EngineMove::Play(Move::Pass), stats);
        }
        let cfg = PlayoutConfig {
            max_moves: self.config.playout_moves,
            komi: self.game.komi(),
        };
        let mut bandit = Ucb1::new(candidates.len(), self.config.c as f64);
        let deadline = self
            .move_cap
            .and_then(|cap| crate::util::num::deadline_after(start, cap));
        let mut done = 0u32;
        while done < self.config.sims {
            if done.is_multiple_of(CHECK_EVERY)
                && done > 0
                && (self.stop.as_ref().is_some_and(|s| s.load(Relaxed))
                    || deadline.is_some_and(|d| Instant::now() >= d))
            {
                break;
            }
            done += 1;
            let arm = bandit.select();
            let mut b = board;
            b.play_legal(color, candidates[arm]);
            let r = playout::run(
                &mut b,
                color.opponent(),
                &mut Uniform,
                &mut self.rng,
                &cfg,
                |_, _| {},
            );
            let reward = if r.margin == 0.0 {
                0.5
            } else if (r.margin > 0.0) == (color == Color::Black) {
                1.0
            } else {
                0.0
            };
            bandit.update(arm, reward);
        }
        let best = bandit.most_visited().expect("at least one candidate");
        let winrate = (bandit.wins[best] / bandit.counts[best] as f64) as f32;
        stats.simulations = u64::from(done);
        stats.winrate = Some(winrate);
        stats.seconds = start.elapsed().as_secs_f64();
        if winrate < self.config.resign {
            return (EngineMove::Resign, stats);
        }
        (EngineMove::Play(Move::Play(candidates[best])), stats)
    }
}

impl Engine for FlatEngine {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn new_game(&mut self, komi: f32) {
        self.game = Game::new(komi);
    }
    fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        self.game.play_on(color, mv)
    }
    fn genmove(&mut self, color: Color) -> (EngineMove, MoveStats) {
        let was_over = self.game.is_over();
        let (m, stats) = self.decide(color);
        if let EngineMove::Play(mv) = m
            && !was_over
        {
            let _ = self.game.play_as(color, mv);
        }
        (m, stats)
    }
    fn undo(&mut self) -> bool {
        self.game.undo()
    }
    fn game(&self) -> &Game {
        &self.game
    }
    fn set_komi(&mut self, komi: f32) {
        self.game.set_komi(komi);
    }
    fn set_game(&mut self, game: Game) -> Result<(), String> {
        self.game = game;
        Ok(())
    }
    fn set_move_cap(&mut self, seconds: Option<f64>) {
        self.move_cap = seconds.filter(|s| *s > 0.0);
    }
    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake bandit: arm i pays 1 with probability p[i].
    fn pull(p: &[f64], arm: usize, rng: &mut FastRng) -> f64 {
        if rng.unit() < p[arm] { 1.0 } else { 0.0 }
    }

    #[test]
    fn tries_every_arm_once_then_follows_the_formula() {
        let p = [0.2, 0.8, 0.5, 0.45];
        let c = 0.4;
        let mut bandit = Ucb1::new(p.len(), c);
        let mut rng = FastRng::new(3);
        for k in 0..p.len() {
            assert_eq!(bandit.select(), k, "untried arms first, in order");
            let r = pull(&p, k, &mut rng);
            bandit.update(k, r);
        }
        for _ in 0..5000 {
            let chosen = bandit.select();
            // Recompute UCB(i) = W_i + c sqrt(ln N / n_i) independently.
            let n = bandit.total as f64;
            let ucb: Vec<f64> = (0..p.len())
                .map(|i| {
                    let ni = bandit.counts[i] as f64;
                    bandit.wins[i] / ni + c * (n.ln() / ni).sqrt()
                })
                .collect();
            let max = ucb.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            assert!((ucb[chosen] - max).abs() < 1e-12, "{ucb:?} chose {chosen}");
            let r = pull(&p, chosen, &mut rng);
            bandit.update(chosen, r);
        }
        assert_eq!(bandit.most_visited(), Some(1));
        assert_eq!(bandit.total, 5004);
    }

    #[test]
    fn larger_c_explores_more() {
        let p = [0.3, 0.7];
        let run = |c: f64| {
            let mut b = Ucb1::new(2, c);
            let mut rng = FastRng::new(9);
            for _ in 0..2000 {
                let a = b.select();
                let r = pull(&p, a, &mut rng);
                b.update(a, r);
            }
            b.counts[0]
        };
        assert!(run(2.0) > run(0.1));
    }
}
