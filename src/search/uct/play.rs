//! The [`Engine`] trait for the UCT engine: the game commands GTP and the arena send.

use super::*;

impl Engine for UctEngine {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, komi: f32) {
        self.game = Game::new(komi);
        self.reset_trees();
        self.low_turns = [0; 2];
    }

    fn reseed(&mut self, seed: u64) -> bool {
        // The streams `new` gives the workers; the pruners' caches keep only network
        // outputs, which do not depend on the seed.
        for (t, w) in self.workers.iter_mut().enumerate() {
            w.reseed(FastRng::for_stream(seed, t as u64));
        }
        true
    }

    fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        if self.game.is_over() {
            // Play after two passes: the trees end at the passes, so they start afresh.
            self.game.play_on(color, mv)?;
            self.reset_trees();
            return Ok(());
        }
        self.play_deferred(color, mv)?;
        self.sync_trees();
        Ok(())
    }

    fn genmove(&mut self, color: Color) -> (EngineMove, MoveStats) {
        self.genmove_inner(color, false)
    }

    fn genmove_cleanup(&mut self, color: Color) -> (EngineMove, MoveStats) {
        self.genmove_inner(color, true)
    }

    fn undo(&mut self) -> bool {
        let ok = self.game.undo();
        if ok {
            self.reset_trees();
            // The moves counted towards resigning may be the ones taken back.
            self.low_turns = [0; 2];
        }
        ok
    }

    fn game(&self) -> &Game {
        &self.game
    }

    fn set_komi(&mut self, komi: f32) {
        self.game.set_komi(komi);
        self.reset_trees();
    }

    fn set_game(&mut self, game: Game) -> Result<(), String> {
        self.game = game;
        self.reset_trees();
        self.low_turns = [0; 2];
        Ok(())
    }

    fn analyzer(&mut self) -> Option<&mut dyn LiveAnalysis> {
        // Analysis reads the trees at the game's position.
        self.sync_trees();
        Some(self)
    }

    fn set_time_control(&mut self, control: TimeControl) {
        self.clocks = [Clock::new(control); 2];
    }

    fn set_move_cap(&mut self, seconds: Option<f64>) {
        self.move_cap = seconds.filter(|s| *s > 0.0);
    }

    fn set_stop(&mut self, stop: Arc<std::sync::atomic::AtomicBool>) {
        for w in &mut self.workers {
            w.set_halt(stop.clone());
        }
    }

    fn set_time_left(&mut self, color: Color, seconds: f64, stones: u32) {
        if (0.0..=crate::util::num::MAX_SECONDS).contains(&seconds) {
            self.clocks[color.idx()].set_left(seconds, stones);
        }
    }

    fn pruner_view(&self, color: Color) -> Option<PrunerView> {
        let (pruner, x, depth) = self.view_pruner.as_ref()?;
        let board = self.game.board();
        let mut scores = [0f32; NN];
        // The history the search gives the pruner at its root.
        let last = given_last(self.config.history, self.last_two_moves());
        rate(&**pruner, board, color, last, &mut scores);
        let candidates = board.candidates(color, BOARD);
        let cand = candidates.as_slice();
        let drop = drop_count(
            cand.len(),
            *x,
            self.config.prune_count,
            self.config.keep_min,
        );
        Some(PrunerView {
            name: pruner.name(),
            scores,
            pruned: worst_mask(cand, &scores, drop),
            depth: *depth,
        })
    }
}
