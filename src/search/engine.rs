//! The interface every in-process player implements. GTP (`akushu gtp`) and the arena drive
//! engines only through it.

use super::clock::TimeControl;
use crate::rules::{Bits, Color, Game, IllegalMove, Move, NN};

/// An engine's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineMove {
    Play(Move),
    Resign,
}

/// What a move decision cost and what the engine thinks of the position.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MoveStats {
    /// Simulations (playouts) run for this move.
    pub simulations: u64,
    /// Wall-clock seconds spent thinking.
    pub seconds: f64,
    /// The engine's estimated win rate for the side that moved, if it has one.
    pub winrate: Option<f32>,
}

/// What an engine's pruner thinks of the current position (GTP analyze commands).
#[derive(Debug, Clone, PartialEq)]
pub struct PrunerView {
    /// The pruner's name.
    pub name: String,
    /// Badness per point (higher is worse); occupied points' scores mean nothing.
    pub scores: [f32; NN],
    /// The points tree pruning would drop at the root of this position.
    pub pruned: Bits,
}

/// A Go player that keeps its own copy of the game.
pub trait Engine: Send {
    /// The engine spec it was built from (e.g. `uct:sims=10000,prune=nn:41@0`).
    fn name(&self) -> String;
    /// Starts a new game on the empty board with this komi.
    fn new_game(&mut self, komi: f32);
    /// Records a move made by either side (GTP `play`).
    fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove>;
    /// Chooses and plays a move for `color`.
    fn genmove(&mut self, color: Color) -> (EngineMove, MoveStats);
    /// Takes back the last move (GTP `undo`); false when there is none.
    fn undo(&mut self) -> bool;
    /// The engine's view of the game.
    fn game(&self) -> &Game;
    /// Sets the clock system of both sides (GTP `time_settings`, `kgs-time_settings`);
    /// engines with a fixed simulation budget may ignore it.
    fn set_time_control(&mut self, _control: TimeControl) {}
    /// Sets the time left for a side (GTP `time_left seconds stones`; stones 0 = main time,
    /// else periods or stones of overtime); engines with a fixed simulation budget may
    /// ignore it.
    fn set_time_left(&mut self, _color: Color, _seconds: f64, _stones: u32) {}
    /// Like [`Engine::genmove`], but never passes while a board move remains (GTP
    /// `kgs-genmove_cleanup`: play on until dead stones are captured).
    fn genmove_cleanup(&mut self, color: Color) -> (EngineMove, MoveStats) {
        self.genmove(color)
    }
    /// Changes komi mid-game (GTP `komi`). The default restarts and replays the moves.
    fn set_komi(&mut self, komi: f32) {
        let moves = self.game().moves().to_vec();
        self.new_game(komi);
        for (c, m) in moves {
            if self.play(c, m).is_err() {
                break;
            }
        }
    }
    /// The pruner's scores and root-pruned points for `color` in the current position, for
    /// engines that have a pruner.
    fn pruner_view(&self, _color: Color) -> Option<PrunerView> {
        None
    }
}
