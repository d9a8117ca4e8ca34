//! The UCT engine (paper A in `docs/papers.md`): 10,000 simulations a move, expansion after 10 visits, UCB1
//! selection, the most-visited move played; with tree, soft and playout pruning hooks, tree
//! reuse, pass and resign rules, and optional root-parallel threads.
//!
//! Threads (`threads=N`): with `parallel=root` each thread grows its own tree from its own
//! seed stream and runs `sims / threads` simulations, and the root statistics are summed;
//! with `parallel=tree` the threads grow one shared tree (virtual loss, lock-free updates)
//! and take simulations from one budget. With one thread both are the same sequential
//! search, fully deterministic for a seed.
//!
//! Files: this one the engine, its search and its move decision; `config.rs` the settings;
//! `live.rs` live analysis and the policy, ownership and scores it reports; `play.rs` the
//! [`Engine`] trait; `tests.rs` the tests.

use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;

use crate::playout::PlayoutConfig;
use crate::playout::heavy::HeavyConfig;
use crate::prune::Pruner;
use crate::rules::{
    BOARD, Bits, Board, Color, Game, IllegalMove, Move, NN, PASS_INDEX, Point, bit, score,
};
use crate::util::rng::FastRng;

use super::clock::{Clock, TimeControl};
use super::engine::{
    Candidate, Engine, EngineBuildError, EngineMove, LiveAnalysis, MoveStats, PrunerView,
    ScoreEstimate,
};
use super::outcomes;
use super::pruners::make_pruner;
use super::pruning::{
    PlayoutEval, PruneCount, PrunerSlot, drop_count, given_last, owners, rate, rate_value,
    score_lead, worst_mask,
};
pub use super::tree::PlayoutKind;
use super::tree::{
    PlayoutPruning, PolicyPrior, Puct, RootNoise, Settings, SimBudget, SoftPruning, Tree,
    TreePruning, ValueMix, Widening, Worker,
};
use crate::net::cnn::SCORE_KOMI;
use crate::prune::name::PrunerName;
use crate::prune::{LastMoves, NO_LAST_MOVES, last_move_code};

mod config;
mod live;
mod play;
pub use config::*;

// `UctConfig::validate` lives in `spec.rs`, beside the key tables whose ranges it checks:
// this file sits below `spec` in the search layer's file order.

/// Builds a pruner from a spec like `rule`, `random:7` or `nn:models/x`; a `random` pruner
/// without a seed takes the engine's.
pub fn resolve_pruner(spec: &str, seed: u64) -> anyhow::Result<Arc<dyn Pruner>> {
    let name = spec
        .parse::<PrunerName>()
        .with_context(|| format!("pruner `{spec}`"))?;
    build_pruner(&name, seed)
}

/// Builds the pruner a parsed name names; a `random` pruner without a seed takes `seed`.
pub fn build_pruner(name: &PrunerName, seed: u64) -> anyhow::Result<Arc<dyn Pruner>> {
    make_pruner(&name.clone().or_seed(seed)).with_context(|| format!("pruner `{name}`"))
}

/// One root move after a search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RootStat {
    pub mv: Move,
    /// Visits made by simulations (soft-pruning priors not counted).
    pub visits: u32,
    /// Wins for the side to move (draws count one half).
    pub wins: f32,
    /// Soft-pruning prior visits given to the move.
    pub prior: u32,
}

/// The UCT engine.
pub struct UctEngine {
    config: UctConfig,
    name: String,
    game: Game,
    /// One tree per thread (`parallel=root`) or one shared tree (`parallel=tree`).
    trees: Vec<Tree>,
    /// One per thread.
    workers: Vec<Worker>,
    /// The pruner shown by GTP analyze commands (tree, else soft, else playout pruner).
    view_pruner: Option<(Arc<dyn Pruner>, usize, u32)>,
    /// The network of the policy prior, whose move probabilities analysis reports as the
    /// policy (KataGo's `policy` and `prior` are the network's, not the search's).
    policy_net: Option<Arc<dyn Pruner>>,
    /// The network of the value, whose ownership head answers analysis' ownership and score
    /// where no playout counted them (a value-only search).
    value_net: Option<Arc<dyn Pruner>>,
    /// Each colour's clock (GTP `time_settings` and `time_left`; counted down by the engine
    /// itself between reports).
    clocks: [Clock; 2],
    /// Simulations run by the last search (fewer than `sims` when a time limit hit).
    last_sims: u64,
    /// Seconds a move's own work after its search took, as last measured, a spike's weight
    /// halving each move: kept back from the next budget beside `time_safety`, since the
    /// clock runs until the move is answered.
    after_search: f64,
    /// Moves played since the trees last moved (with `reuse`): an engine's own reply is not
    /// followed into its subtree at once, which copies a large part of the tree while the
    /// clock runs, but with the opponent's answer, on the opponent's time, or when the
    /// trees are next needed; the subtree copied is then the answer's, a small one.
    pending: Vec<(Color, Move)>,
    /// Seconds each move's search may take at most, beside `max_seconds` and the clock
    /// ([`Engine::set_move_cap`]).
    move_cap: Option<f64>,
    /// Each colour's own moves in a row whose best move's win rate was below `resign`
    /// (`resign_turns`).
    low_turns: [u32; 2],
}

impl UctEngine {
    /// Builds the engine; fails when the config is out of range ([`UctConfig::validate`]) or
    /// a pruner cannot be made.
    pub fn new(config: UctConfig, seed: u64) -> Result<UctEngine, EngineBuildError> {
        config.validate()?;
        // One pruner (and one cache per thread) per distinct spec.
        let mut specs: Vec<PrunerName> = Vec::new();
        let mut slot_of = |s: &PrunerName| match specs.iter().position(|x| x == s) {
            Some(i) => i,
            None => {
                specs.push(s.clone());
                specs.len() - 1
            }
        };
        let prune = config.prune.as_ref().map(|p| TreePruning {
            slot: slot_of(&p.pruner),
            x: p.x,
            depth: p.depth,
        });
        let soft = config.soft.as_ref().map(|p| SoftPruning {
            slot: slot_of(&p.pruner),
            visits: p.visits,
            x: p.x,
            depth: p.depth,
        });
        let playout_prune = config.playout_prune.as_ref().map(|p| PlayoutPruning {
            slot: slot_of(&p.pruner),
            share: p.share,
            eval: p.eval,
        });
        let widen = config.widen.as_ref().map(|w| Widening {
            slot: slot_of(&w.pruner),
            k0: w.k0,
            base: w.base,
            log_mult: w.mult.ln(),
        });
        let policy = config.policy.as_ref().map(|p| PolicyPrior {
            slot: slot_of(p),
            weight: config.policy_weight,
        });
        let value = config.value.as_ref().map(|v| ValueMix {
            slot: slot_of(v),
            lambda: config.value_mix,
        });
        let pruners: Vec<Arc<dyn Pruner>> = specs
            .iter()
            .map(|s| build_pruner(s, seed))
            .collect::<anyhow::Result<_>>()?;
        if let Some(v) = value.filter(|v| !pruners[v.slot].has_value()) {
            return Err(anyhow::anyhow!(
                "value={}: this network has no value head (train one with `akushu train --value-channels N`)",
                specs[v.slot]
            )
            .into());
        }
        let settings = Settings {
            expand: config.expand,
            c: config.c,
            max_nodes: config.max_nodes.max(NN + 2),
            playout: PlayoutConfig {
                max_moves: config.playout_moves,
                komi: 6.5,
            },
            prune,
            soft,
            playout_prune,
            playout_kind: config.playout,
            prune_count: config.prune_count,
            keep_min: config.keep_min,
            rave: config.rave,
            priors: config.priors,
            heavy: config.heavy,
            policy,
            puct: (config.select == Select::Puct).then_some(Puct {
                c: config.cpuct,
                c_log: config.cpuct_log,
                c_base: config.cpuct_base,
                fpu: config.fpu,
                fpu_root: config.fpu_root,
                pass_prior: config.pass_prior,
            }),
            value,
            root_noise: (config.root_noise > 0.0).then_some(RootNoise {
                eps: config.root_noise,
                alpha: config.root_noise_alpha,
            }),
            widen,
            history: config.history,
        };
        let view_pruner = prune
            .map(|p| (p.slot, p.x, p.depth))
            .or(soft.map(|s| (s.slot, s.x, s.depth)))
            .or(playout_prune.map(|p| (p.slot, 0, 0)))
            .map(|(slot, x, depth)| (pruners[slot].clone(), x, depth));
        let policy_net = policy.map(|p| pruners[p.slot].clone());
        let value_net = value.map(|v| pruners[v.slot].clone());
        let threads = config.threads.max(1);
        let trees: Vec<Tree> = match config.parallel {
            Parallel::Root => (0..threads)
                .map(|_| Tree::try_new(settings, false))
                .collect::<Result<_, _>>(),
            Parallel::Tree => Tree::try_new(settings, threads > 1).map(|t| vec![t]),
        }?;
        let workers = (0..threads)
            .map(|t| {
                let slots = pruners
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let slot = PrunerSlot::new(p.clone(), config.cache);
                        // Only the value's slot pays for the value head.
                        if value.is_some_and(|v| v.slot == i) {
                            slot.with_value()
                        } else {
                            slot
                        }
                    })
                    .collect();
                Worker::new(slots, FastRng::for_stream(seed, t as u64))
            })
            .collect();
        Ok(UctEngine {
            // Engines built from a spec are named by it (`search::spec`'s builders call
            // `with_name`); the spec printer lives there, so a bare engine is just "uct".
            name: "uct".to_string(),
            config,
            game: Game::new(6.5),
            trees,
            workers,
            view_pruner,
            policy_net,
            value_net,
            clocks: [Clock::new(TimeControl::None); 2],
            last_sims: 0,
            after_search: 0.0,
            pending: Vec::new(),
            move_cap: None,
            low_turns: [0; 2],
        })
    }

    /// Sets the name reported by [`Engine::name`] (the spec it was built from).
    pub fn with_name(mut self, name: impl Into<String>) -> UctEngine {
        self.name = name.into();
        self
    }

    pub fn config(&self) -> &UctConfig {
        &self.config
    }

    /// Pruner calls and cache hits so far, summed over threads and pruners.
    pub fn pruner_counts(&self) -> (u64, u64) {
        self.workers
            .iter()
            .flat_map(|w| w.slots.iter())
            .fold((0, 0), |(e, h), s| (e + s.evals, h + s.hits))
    }

    /// Real visits of the first tree's current root (0 after a reset): shows tree reuse.
    pub fn root_visits(&self) -> u32 {
        self.trees[0].root().real_visits()
    }

    /// Consecutive passes at the end of the game.
    fn trailing_passes(&self) -> u8 {
        self.game
            .moves()
            .iter()
            .rev()
            .take_while(|(_, m)| *m == Move::Pass)
            .count()
            .min(2) as u8
    }

    /// The last two moves of the game, newest first.
    fn last_two_moves(&self) -> LastMoves {
        let mut out = NO_LAST_MOVES;
        for (slot, (_, m)) in out.iter_mut().zip(self.game.moves().iter().rev()) {
            *slot = last_move_code(*m);
        }
        out
    }

    /// Root moves the game layer allows (superko included).
    fn root_allowed(&self, color: Color) -> Bits {
        let board = self.game.board();
        crate::rules::BitIter(board.empty_bits())
            .filter(|&i| self.game.check(color, Move::Play(Point::new(i))).is_ok())
            .fold(0, |m, i| m | bit(i))
    }

    /// Empties the trees for the game's current position; their playouts score with the
    /// game's komi (so a new game, a komi change and a set-up game all come through here).
    fn reset_trees(&mut self) {
        self.pending.clear();
        let (b, c) = (*self.game.board(), self.game.to_move());
        let (passes, komi) = (self.trailing_passes(), self.game.komi());
        for t in &mut self.trees {
            t.settings.playout.komi = komi;
            t.reset(b, c, passes);
        }
    }

    /// Moves the trees down the moves played since they last moved ([`UctEngine::pending`]).
    fn sync_trees(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        for t in &mut self.trees {
            t.advance_path(&self.pending);
        }
        self.pending.clear();
    }

    /// Searches the current position with `color` to move (the configured number of
    /// simulations, reusing the tree) without playing, and returns the root's moves with
    /// their statistics summed over threads, in move-index order (pass last).
    pub fn analyze(&mut self, color: Color) -> Vec<RootStat> {
        self.game.set_to_move(color);
        let stats = self.search(color);
        stats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.2)
            .map(|(i, &(visits, wins, _, prior))| RootStat {
                mv: Move::from_index(i).expect("root child index"),
                visits,
                wins,
                prior,
            })
            .collect()
    }

    /// Runs the search for `color` and returns the summed root statistics per move index
    /// (real visits, wins, present as a root child, prior visits).
    fn search(&mut self, color: Color) -> Vec<(u32, f32, bool, u32)> {
        let total = self.config.sims as u64;
        let mut limit = (self.config.max_seconds > 0.0).then_some(self.config.max_seconds);
        for cap in [self.move_budget(color), self.move_cap]
            .into_iter()
            .flatten()
        {
            limit = Some(limit.map_or(cap, |l| l.min(cap)));
        }
        let deadline = limit.and_then(|l| crate::util::num::deadline_after(Instant::now(), l));
        self.run_search(color, total, deadline, self.config.reuse);
        self.root_totals()
    }

    /// Seconds the clock gives `color`'s next move, `None` when it does not limit: its
    /// budget less the safety margin and the work a move does after its search.
    fn move_budget(&self, color: Color) -> Option<f64> {
        let own_moves = self
            .game
            .moves()
            .iter()
            .filter(|(c, _)| *c == color)
            .count();
        self.clocks[color.idx()].budget(
            own_moves as u32,
            self.config.time_safety + self.after_search,
        )
    }

    /// Runs up to `total` simulations for `color` (fewer when `deadline` passes), split over
    /// the threads; `reuse` false starts every thread from a fresh tree. Sets `last_sims`.
    fn run_search(&mut self, color: Color, total: u64, deadline: Option<Instant>, reuse: bool) {
        self.sync_trees();
        let board = *self.game.board();
        let passes = self.trailing_passes();
        let allowed = self.root_allowed(color);
        let threads = self.workers.len() as u64;
        let last = self.last_two_moves();
        for t in &mut self.trees {
            if !reuse {
                t.reset(board, color, passes);
            }
            t.set_root(&board, color, passes, allowed);
            t.set_root_last(last);
        }
        let trees = &self.trees;
        self.last_sims = match (threads, self.config.parallel) {
            (1, _) => self.workers[0].search(&trees[0], &SimBudget::new(total), deadline),
            (_, Parallel::Tree) => {
                let budget = SimBudget::new(total);
                std::thread::scope(|s| {
                    let handles: Vec<_> = self
                        .workers
                        .iter_mut()
                        .map(|w| {
                            let (tree, budget) = (&trees[0], &budget);
                            s.spawn(move || w.search(tree, budget, deadline))
                        })
                        .collect();
                    join_sum(handles)
                })
            }
            (_, Parallel::Root) => std::thread::scope(|s| {
                let handles: Vec<_> = self
                    .workers
                    .iter_mut()
                    .zip(trees)
                    .enumerate()
                    .map(|(t, (w, tree))| {
                        let n = total / threads + u64::from((t as u64) < total % threads);
                        s.spawn(move || w.search(tree, &SimBudget::new(n), deadline))
                    })
                    .collect();
                join_sum(handles)
            }),
        };
    }

    /// The root statistics summed over threads, per move index (real visits, wins, present
    /// as a root child, prior visits).
    fn root_totals(&self) -> Vec<(u32, f32, bool, u32)> {
        let mut stats = vec![(0u32, 0f32, false, 0u32); NN + 1];
        for t in &self.trees {
            for ch in t.root_children() {
                let e = &mut stats[ch.mv()];
                e.0 += ch.real_visits();
                e.1 += ch.real_wins();
                e.2 = true;
                e.3 += ch.prior() as u32;
            }
        }
        stats
    }

    /// Keeps the final score and owners of every simulation in every tree, as analysis does
    /// (`bench search --analysis` measures what it costs).
    pub fn track_outcomes(&mut self) {
        for t in &mut self.trees {
            t.track_outcomes();
        }
    }

    /// Whether `color` loses by the area count if the game ended now (the opponent could end
    /// it by passing after our pass).
    fn pass_loses(&self, color: Color) -> bool {
        let margin = score::area_margin(self.game.board(), self.game.komi());
        match color {
            Color::Black => margin <= 0.0,
            Color::White => margin >= 0.0,
        }
    }

    /// Plays `mv` in the game; the trees follow it when next needed ([`UctEngine::pending`]).
    fn play_deferred(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        self.game.play_as(color, mv)?;
        if self.config.reuse {
            self.pending.push((color, mv));
        } else {
            self.reset_trees();
        }
        Ok(())
    }

    /// Chooses a move ([`choose_root_move`]: the most visited, or the best lower bound).
    fn decide(&mut self, color: Color, cleanup: bool) -> (EngineMove, MoveStats) {
        let start = Instant::now();
        let mut stats = MoveStats::default();
        if self.game.is_over() {
            return (EngineMove::Play(Move::Pass), stats);
        }
        self.game.set_to_move(color);
        if !cleanup
            && self.config.pass_when_ahead
            && self.game.last_move() == Some((color.opponent(), Move::Pass))
        {
            let margin = score::area_margin(self.game.board(), self.game.komi());
            let ahead = if color == Color::Black {
                margin > 0.0
            } else {
                margin < 0.0
            };
            if ahead {
                stats.seconds = start.elapsed().as_secs_f64();
                return (EngineMove::Play(Move::Pass), stats);
            }
        }
        let root_stats = self.search(color);
        stats.simulations = self.last_sims;
        let lcb = self.config.lcb;
        let choose = |skip_pass: bool| choose_root_move(&root_stats, skip_pass, lcb);
        let mut best = choose(cleanup);
        if self.config.safe_pass
            && best.is_some_and(|(i, _, _)| i == PASS_INDEX)
            && self.pass_loses(color)
        {
            // A pass the opponent can answer with a pass would lose by the area count: play
            // the best board move instead, when the search has one.
            best = choose(true).or(best);
        }
        let (mv, winrate) = match best {
            Some((i, v, w)) => (
                Move::from_index(i).expect("root child index"),
                Some(w / v as f32),
            ),
            None => (Move::Pass, None),
        };
        stats.winrate = winrate;
        stats.seconds = start.elapsed().as_secs_f64();
        if self.resigns(color, winrate, best.map(|(_, v, _)| v)) {
            return (EngineMove::Resign, stats);
        }
        (EngineMove::Play(mv), stats)
    }

    /// Whether `color` resigns after a search whose best move has `winrate` over `visits`:
    /// at once when the move had `resign_visits`, else once `resign_turns` of its own moves
    /// in a row were below `resign` (this one counted).
    fn resigns(&mut self, color: Color, winrate: Option<f32>, visits: Option<u32>) -> bool {
        let low = &mut self.low_turns[color.idx()];
        if !winrate.is_some_and(|w| w < self.config.resign) {
            *low = 0;
            return false;
        }
        *low += 1;
        let sure = visits.is_some_and(|v| v >= self.config.resign_visits);
        let lasting = self.config.resign_turns > 0 && *low >= self.config.resign_turns;
        sure || lasting
    }

    fn genmove_inner(&mut self, color: Color, cleanup: bool) -> (EngineMove, MoveStats) {
        let (m, stats, ()) = self.genmove_with(color, cleanup, |_| ());
        (m, stats)
    }

    /// Decides a move for `color`, counts it against the clock, lets `inspect` read the
    /// searched root before the move moves it, then plays the move; what `inspect` returned.
    /// One path for `genmove`, `kgs-genmove_cleanup` and `genmove_analyze`.
    fn genmove_with<T>(
        &mut self,
        color: Color,
        cleanup: bool,
        inspect: impl FnOnce(&Self) -> T,
    ) -> (EngineMove, MoveStats, T) {
        let was_over = self.game.is_over();
        let (mut m, stats) = self.decide(color, cleanup);
        let seen = inspect(self);
        let after = Instant::now();
        if let EngineMove::Play(mv) = m
            && !was_over
            && self.play_deferred(color, mv).is_err()
        {
            // Cannot happen (root moves pass the game's check); pass rather than panic.
            let _ = self.play_deferred(color, Move::Pass);
            m = EngineMove::Play(Move::Pass);
        }
        let tail = after.elapsed().as_secs_f64();
        self.after_search = tail.max(self.after_search * 0.5);
        // Until the controller reports the clock again, count the whole move against it.
        self.clocks[color.idx()].spend(stats.seconds + tail);
        (m, stats, seen)
    }
}

/// The root move to play from the per-move `(visits, wins, ..)` totals, as `(index,
/// visits, wins)`: the most visited (ties to more wins, then the lower index), or with
/// `lcb > 0` the best lower confidence bound of the win rate among the moves with at least
/// `lcb` of the most-visited move's visits (ties to the most visited). `skip_pass` leaves
/// the pass out. `None` when no move was visited.
fn choose_root_move(
    root_stats: &[(u32, f32, bool, u32)],
    skip_pass: bool,
    lcb: f32,
) -> Option<(usize, u32, f32)> {
    let visited = || {
        root_stats
            .iter()
            .enumerate()
            .filter(move |&(i, t)| t.0 > 0 && !(skip_pass && i == PASS_INDEX))
            .map(|(i, t)| (i, t.0, t.1))
    };
    let mut best: Option<(usize, u32, f32)> = None;
    for (i, v, w) in visited() {
        if best.is_none_or(|(_, bv, bw)| v > bv || (v == bv && w > bw)) {
            best = Some((i, v, w));
        }
    }
    let top = best?;
    if lcb <= 0.0 {
        return best;
    }
    let bound = |(_, v, w): (usize, u32, f32)| live::winrate_lcb(w / v as f32, v);
    let enough = lcb * top.1 as f32;
    let chosen = visited()
        .filter(|&(_, v, _)| v as f32 >= enough)
        .fold(top, |b, c| if bound(c) > bound(b) { c } else { b });
    Some(chosen)
}

/// Waits for the search threads; the simulations they ran.
fn join_sum(handles: Vec<std::thread::ScopedJoinHandle<'_, u64>>) -> u64 {
    handles
        .into_iter()
        .map(|h| h.join().expect("search thread panicked"))
        .sum()
}

#[cfg(test)]
mod tests;
