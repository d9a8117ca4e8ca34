//! The interface every in-process player implements. GTP (`akushu gtp`) and the arena drive
//! engines only through it.

use super::clock::TimeControl;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::rules::{Bits, Color, Game, IllegalMove, Move, NN};

/// The memory for a search tree could not be had: the machine's limit, not a fault of the
/// engine or its spec (the arena does not count such a game).
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error(
    "cannot allocate the search tree: {nodes} nodes of 32 bytes = {} MB (lower the engine's \
     max_nodes, e.g. uct:max_nodes=100000, run fewer --jobs, or raise the memory limit)",
    (.nodes * 32) >> 20
)]
pub struct TreeAllocError {
    pub nodes: usize,
}

/// Why an engine spec did not build: the spec's fault, or the machine's. The arena tells the
/// two apart by matching on it: a machine that cannot give a game's engine its memory
/// records no loss for that engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineBuildError {
    /// The spec names no engine that builds: an unknown kind or key, a value out of range, a
    /// network that does not load.
    #[error(transparent)]
    Spec(#[from] anyhow::Error),
    /// The machine could not give the engine its search tree. `context` is what was being
    /// built (`engine spec `...`: `), printed before the allocation error.
    #[error("{context}{error}")]
    Resources {
        context: String,
        error: TreeAllocError,
    },
}

impl EngineBuildError {
    /// The error with `what` said first, as `anyhow::Context` would: `what: error`.
    pub fn context(self, what: impl std::fmt::Display) -> EngineBuildError {
        match self {
            EngineBuildError::Spec(e) => EngineBuildError::Spec(e.context(what.to_string())),
            EngineBuildError::Resources { context, error } => EngineBuildError::Resources {
                context: format!("{what}: {context}"),
                error,
            },
        }
    }
}

impl From<TreeAllocError> for EngineBuildError {
    fn from(error: TreeAllocError) -> EngineBuildError {
        EngineBuildError::Resources {
            context: String::new(),
            error,
        }
    }
}

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
    /// The points tree pruning drops at a node of this position at or below `depth`.
    pub pruned: Bits,
    /// The first depth tree pruning applies at (0 = the root; soft and playout pruning
    /// views say 0).
    pub depth: u32,
}

/// One candidate move of a live analysis (GTP `lz-analyze`, `kata-analyze`).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub mv: Move,
    /// Simulations through the move.
    pub visits: u32,
    /// Win rate of the side to move after playing it, in 0..=1.
    pub winrate: f32,
    /// The engine's prior for the move, in 0..=1 (engines without a policy give every
    /// candidate the same share).
    pub prior: f32,
    /// A lower confidence bound of `winrate` (what Leela Zero ranks by), in 0..=1.
    pub lcb: f32,
    /// The principal variation, starting with `mv`.
    pub pv: Vec<Move>,
    /// The final area margin of the simulations through the move, for the side to move
    /// (none where the engine keeps no score).
    pub score: Option<ScoreEstimate>,
}

/// A score estimate from the simulations' final area counts, in points, for the side it is
/// reported for (positive = that side ahead).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreEstimate {
    pub mean: f32,
    pub stdev: f32,
    /// Simulations it is drawn from.
    pub simulations: u64,
}

/// Engines that can search a position without playing and show their candidates while they
/// think (GUIs' live analysis). The search accumulates: each call adds to the same tree
/// until the position changes. (Not the rule-based board analysis of `akushu analyze`;
/// `akushu analysis`, KataGo's JSON protocol, and GTP's `kata-analyze` answer through it.)
pub trait LiveAnalysis {
    /// Searches the current position with `color` to move until `deadline`; returns the
    /// simulations run.
    fn analyze_until(&mut self, color: Color, deadline: Instant) -> u64;
    /// The root's candidates with at least one visit, best first (most visits, then the
    /// higher win rate), each with a principal variation of at most `max_pv` moves.
    fn candidates(&self, color: Color, max_pv: usize) -> Vec<Candidate>;
    /// The moves that could be candidates but have no visit yet, in move order (to pad a
    /// list to the `minmoves` a GUI asked for).
    fn unvisited(&self, color: Color) -> Vec<Move>;
    /// Each point's expected final owner over the analysis' simulations, in -1..=1 for
    /// `color` (+1 = `color`'s), by point index; none where the engine keeps no owners.
    fn ownership(&self, _color: Color) -> Option<[f32; crate::rules::NN]> {
        None
    }
    /// The root's score estimate for `color` over the analysis' simulations.
    fn root_score(&self, _color: Color) -> Option<ScoreEstimate> {
        None
    }
    /// The root's visits and `color`'s win rate over them, the root's own evaluation
    /// included (KataGo's `rootInfo`): at one visit, the value network's win rate of the
    /// position; with no visit yet, the network's where the engine has one. `None` where
    /// the engine keeps no root statistics.
    fn root_winrate(&self, _color: Color) -> Option<(u32, f32)> {
        None
    }
    /// Searches the current position with `color` to move for `sims` more simulations
    /// (JSON analysis' `maxVisits`), keeping scores and owners; returns the simulations run.
    fn analyze_sims(&mut self, color: Color, sims: u64) -> u64;
    /// Every point's policy then the pass's, -1 where the move is illegal. An engine with a
    /// policy network gives the network's move probabilities (as KataGo's analysis does);
    /// one without gives the root's prior share of each candidate (-1 also where the search
    /// pruned the move), none before the root is expanded.
    fn root_policy(&self, _color: Color) -> Option<Vec<f32>> {
        None
    }
    /// Like [`Engine::genmove`], also returning the candidates of the search that chose the
    /// move (GTP `genmove_analyze`).
    fn genmove_analyze(
        &mut self,
        color: Color,
        max_pv: usize,
    ) -> (EngineMove, MoveStats, Vec<Candidate>);
}

/// A Go player that keeps its own copy of the game.
pub trait Engine: Send {
    /// The engine spec it was built from (e.g. `uct:sims=10000,prune=nn:41@0`).
    fn name(&self) -> String;
    /// Starts a new game on the empty board with this komi.
    fn new_game(&mut self, komi: f32);
    /// Records a move made by either side (GTP `play`), also after two passes: GTP ends no
    /// game there ([`Game::play_on`]).
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
    /// Caps each move's search at `seconds` of wall clock (`None`: no cap), beside the
    /// engine's own simulation budget and its clock (GTP's per-move cap for a controller
    /// that sends no time settings); engines whose moves take no search may ignore it.
    fn set_move_cap(&mut self, _seconds: Option<f64>) {}
    /// Shares `stop` with the engine: once it is set, every search ends at its next clock
    /// check and the engine answers with what it found so far (GTP sets it when its
    /// controller is gone, so a search nobody waits for does not run on); engines whose
    /// moves take no search may ignore it.
    fn set_stop(&mut self, _stop: Arc<AtomicBool>) {}
    /// Sets the time left for a side (GTP `time_left seconds stones`; stones 0 = main time,
    /// else periods or stones of overtime); engines with a fixed simulation budget may
    /// ignore it.
    fn set_time_left(&mut self, _color: Color, _seconds: f64, _stones: u32) {}
    /// Like [`Engine::genmove`], but never passes while a board move remains (GTP
    /// `kgs-genmove_cleanup`: play on until dead stones are captured).
    fn genmove_cleanup(&mut self, color: Color) -> (EngineMove, MoveStats) {
        self.genmove(color)
    }
    /// Restarts every random stream as a fresh engine built with `seed` has it, so that a
    /// reused engine searches a new game exactly as a new one would (the JSON analysis
    /// server reuses one engine for every turn it analyses). False where the engine cannot;
    /// the caller then builds a new engine.
    fn reseed(&mut self, _seed: u64) -> bool {
        false
    }
    /// Changes komi mid-game (GTP `komi`). The default hands [`Engine::set_game`] the same
    /// game with the new komi (setup stones kept), else restarts and replays the moves.
    fn set_komi(&mut self, komi: f32) {
        let mut game = self.game().clone();
        game.set_komi(komi);
        if self.set_game(game).is_ok() {
            return;
        }
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
    /// Replaces the game with `game` (handicap stones, a loaded record), keeping its komi.
    /// Engines that cannot start from a set-up position refuse.
    fn set_game(&mut self, _game: Game) -> Result<(), String> {
        Err("this engine cannot start from a set-up position".into())
    }
    /// The engine's live-analysis side, for engines that have one.
    fn analyzer(&mut self) -> Option<&mut dyn LiveAnalysis> {
        None
    }
}
