//! The UCT engine (paper A in `docs/papers.md`): 10,000 simulations a move, expansion after 10 visits, UCB1
//! selection, the most-visited move played; with tree, soft and playout pruning hooks, tree
//! reuse, pass and resign rules, and optional root-parallel threads.
//!
//! Threads (`threads=N`): with `parallel=root` each thread grows its own tree from its own
//! seed stream and runs `sims / threads` simulations, and the root statistics are summed;
//! with `parallel=tree` the threads grow one shared tree (virtual loss, lock-free updates)
//! and take simulations from one budget. With one thread both are the same sequential
//! search, fully deterministic for a seed.

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
    Analyzer, Candidate, Engine, EngineMove, MoveStats, PrunerView, ScoreEstimate,
};
use super::outcomes;
use super::pruners::make_pruner;
use super::pruning::{
    PlayoutEval, PruneCount, PrunerSlot, drop_count, given_last, owners, rate, worst_mask,
};
pub use super::tree::PlayoutKind;
use super::tree::{
    PlayoutPruning, PolicyPrior, Puct, RootNoise, Settings, SimBudget, SoftPruning, Tree,
    TreePruning, ValueMix, Widening, Worker,
};
use crate::prune::name::PrunerName;
use crate::prune::{LastMoves, NO_LAST_MOVES, last_move_code};

/// Tree pruning settings (`prune=KIND[:ARG]:X[@D]` in specs).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TreePrune {
    /// Pruner spec: `rule`, `random[:SEED]`, `nn[:MODEL]`, ... (see `search::pruners`).
    pub pruner: String,
    /// How many of the worst candidate moves to drop at each pruned node.
    pub x: usize,
    /// First depth pruned (0 = the root; the paper compared 0, 1, 2, 3).
    pub depth: u32,
}

/// Playout pruning settings (`playout_prune=KIND[:ARG]:SHARE`, `playout_eval=leaf|move`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlayoutPrune {
    /// Pruner spec, as for tree pruning.
    pub pruner: String,
    /// Share of the empty points the mover may never play (0.6 in the paper).
    pub share: f32,
    /// When the pruner is asked: once per tree leaf, or before every playout move.
    pub eval: PlayoutEval,
}

/// Soft pruning settings (`soft=KIND[:ARG]:N:X[@D]`): negative priors instead of deletion.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SoftPrune {
    /// Pruner spec, as for tree pruning.
    pub pruner: String,
    /// Prior visits with no wins given to each softly pruned move.
    pub visits: u16,
    /// How many of the worst candidates get the prior.
    pub x: usize,
    /// First depth where priors are given (0 = the root).
    pub depth: u32,
}

/// Progressive widening (`widen=PRUNER:K0:BASE:MULT`): a node's candidates are ranked by
/// the pruner, best first, and selection looks only at the best `k(n)` of them (pass always
/// included), `k(n) = K0 + 1 + floor(log_MULT(n / BASE))` once the node has `n >= BASE`
/// visits (else K0): Coulom's unpruning schedule with the network as the order.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Widen {
    /// Pruner spec giving the order, as for tree pruning.
    pub pruner: String,
    /// Candidates open at a new node.
    pub k0: usize,
    /// Visits at which the next candidate opens.
    pub base: f32,
    /// Each further candidate needs this many times the visits of the previous one.
    pub mult: f32,
}

/// How a node chooses the child a simulation descends into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Select {
    /// UCB1 (`c`), or RAVE's blend when `rave > 0`; leaves expanded after `expand` visits
    /// and played out (the paper's engine and the `strong` presets).
    #[default]
    Ucb,
    /// PUCT with the policy network's priors (AlphaZero, KataGo; [`super::tree::Puct`]):
    /// every leaf expanded on its first visit and valued by the value network.
    Puct,
}

/// How several search threads share the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Parallel {
    /// Each thread grows its own tree from its own seed stream; the root statistics are
    /// summed at the end (no shared memory, but the trees repeat each other's work).
    #[default]
    Root,
    /// The threads grow one shared tree, steered apart by virtual loss ([`super::tree`]).
    Tree,
}

/// Every tunable of the UCT engine. Defaults are the paper's setup (paper A in `docs/papers.md`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct UctConfig {
    /// Simulations (playouts) per move.
    pub sims: u32,
    /// A node is expanded once it has been visited this many times.
    pub expand: u32,
    /// UCB1 exploration constant c in `w/n + c*sqrt(ln N / n)`. The paper does not give its
    /// value; 0.4 is what section D found better than the textbook sqrt(2).
    pub c: f32,
    /// Search threads (1 = deterministic for a seed).
    pub threads: usize,
    /// How the threads share the search: their own trees (`root`) or one tree (`tree`).
    pub parallel: Parallel,
    /// Keep the subtree of the moves played between searches.
    pub reuse: bool,
    /// Resign when the best move's win rate is below this (0 = never; off in experiments).
    pub resign: f32,
    /// Pass after the opponent passed when the area count already wins (ends games fast).
    pub pass_when_ahead: bool,
    /// Never choose a pass while the area count says it loses (the opponent's pass would
    /// end the game), as long as the search tried a board move. Off in the paper's engine,
    /// whose recorded games pass on its search alone.
    pub safe_pass: bool,
    /// Resign only after the best move's simulations reach this many, so a short search
    /// (a time-pressed move) never resigns on noise.
    pub resign_visits: u32,
    /// Node budget per tree (32 bytes each); expansion stops when it is spent.
    pub max_nodes: usize,
    /// Playout length cap in moves (both colours, passes included).
    pub playout_moves: u32,
    /// Tree pruning (none by default).
    pub prune: Option<TreePrune>,
    /// What x counts in tree pruning: `legal` (x worst candidates) or `board` (keep 81-x best).
    pub prune_count: PruneCount,
    /// Tree pruning never leaves fewer board moves than this at a node (pass is always kept).
    pub keep_min: usize,
    /// Playout pruning (none by default).
    pub playout_prune: Option<PlayoutPrune>,
    /// Playout move generator: `uniform` (the paper's light playout) or `territory` (the
    /// rule-based territory-gain generator of paper E in `docs/papers.md`, much slower per playout).
    pub playout: PlayoutKind,
    /// Soft pruning (none by default).
    pub soft: Option<SoftPrune>,
    /// Progressive widening (none by default).
    pub widen: Option<Widen>,
    /// Entries of each pruner's score cache (rounded up to a power of two; 324 bytes each).
    pub cache: usize,
    /// RAVE equivalence parameter (0 = off, the paper's plain UCT). michi uses 3500.
    pub rave: f32,
    /// Heuristic priors for new nodes ([`super::priors`]); off in the paper's setup.
    pub priors: bool,
    /// Rule probabilities of `playout=heavy`.
    pub heavy: HeavyConfig,
    /// Network policy prior (`policy=nn[:MODEL]`): each new candidate starts with
    /// `policy_weight * sqrt(p)` won visits, p = 1 - the pruner's badness.
    pub policy: Option<String>,
    /// Weight of the policy prior (michi's large-pattern prior uses 100); PUCT takes the
    /// policy's probabilities as they are and ignores it.
    pub policy_weight: f32,
    /// Child selection: `ucb` (UCB1/RAVE over playouts) or `puct` (priors and values).
    pub select: Select,
    /// PUCT's exploration weight `c` in `Q + c * P * sqrt(N) / (1 + n)` (win rates in 0..1).
    pub cpuct: f32,
    /// Growth of PUCT's `c` with a node's visits: `c + cpuct_log * ln((N + base) / base)`.
    pub cpuct_log: f32,
    /// The `base` of that growth, in visits.
    pub cpuct_base: f32,
    /// PUCT's first-play urgency reduction below the root: an unvisited child is valued at
    /// the parent's value less `fpu * sqrt(prior of the visited children)`.
    pub fpu: f32,
    /// The same at the root.
    pub fpu_root: f32,
    /// PUCT's prior probability for the pass (the networks rate board points only).
    pub pass_prior: f32,
    /// A network with a value head (`value=nnq:MODEL`) whose win probability is mixed into
    /// every simulation's result ([`super::tree::ValueMix`]); name the same model as
    /// `policy` and `prune` and it costs no extra evaluation.
    pub value: Option<String>,
    /// The value's share of each result (AlphaGo's lambda): 0 = playouts only, 1 = the
    /// value only (no playouts).
    pub value_mix: f32,
    /// AlphaZero's root noise for self-play: the share `eps` of the root's policy prior
    /// drawn from a Dirichlet distribution (0 = off; needs `policy`; trees are not reused).
    pub root_noise: f32,
    /// Concentration of the root noise's Dirichlet distribution.
    pub root_noise_alpha: f32,
    /// Stop a move's search after this many seconds even when `sims` are not done (0 = no
    /// limit). A clock (GTP `time_settings`/`time_left`, `match --time-per-move`) also caps
    /// each move at the time allocator's budget ([`super::clock`]). Either limit makes games
    /// depend on machine speed, so the paper's experiments leave both off.
    pub max_seconds: f64,
    /// Seconds every clock budget keeps back for the controller's and the transport's lag.
    pub time_safety: f64,
    /// Give the networks the last two moves before each position (the planes training
    /// filled). The presets recorded before this key existed (`strong`, `strong2`) set it
    /// off, so their recorded games replay.
    pub history: bool,
}

impl Default for UctConfig {
    fn default() -> Self {
        UctConfig {
            sims: 10_000,
            expand: 10,
            c: 0.4,
            threads: 1,
            parallel: Parallel::Root,
            reuse: true,
            resign: 0.0,
            pass_when_ahead: true,
            safe_pass: false,
            resign_visits: 0,
            max_nodes: 1 << 20,
            playout_moves: PlayoutConfig::default().max_moves,
            prune: None,
            prune_count: PruneCount::Legal,
            keep_min: 1,
            playout_prune: None,
            playout: PlayoutKind::Uniform,
            soft: None,
            widen: None,
            cache: 4096,
            rave: 0.0,
            priors: false,
            heavy: HeavyConfig::default(),
            policy: None,
            policy_weight: 100.0,
            select: Select::Ucb,
            cpuct: 0.5,
            cpuct_log: 0.0,
            cpuct_base: 500.0,
            fpu: 0.2,
            fpu_root: 0.1,
            pass_prior: 0.01,
            value: None,
            value_mix: 0.5,
            root_noise: 0.0,
            root_noise_alpha: 0.15,
            max_seconds: 0.0,
            time_safety: super::clock::DEFAULT_SAFETY,
            history: true,
        }
    }
}

// `UctConfig::validate` lives in `spec.rs`, beside the key tables whose ranges it checks:
// this file sits below `spec` in the search layer's file order.

/// Builds a pruner from a spec like `rule`, `random:7` or `nn:models/x`; a `random` pruner
/// without a seed takes the engine's.
pub fn resolve_pruner(spec: &str, seed: u64) -> anyhow::Result<Arc<dyn Pruner>> {
    let name = spec
        .parse::<PrunerName>()
        .with_context(|| format!("pruner `{spec}`"))?;
    make_pruner(&name.or_seed(seed)).with_context(|| format!("pruner `{spec}`"))
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
}

impl UctEngine {
    /// Builds the engine; fails when the config is out of range ([`UctConfig::validate`]) or
    /// a pruner cannot be made.
    pub fn new(config: UctConfig, seed: u64) -> anyhow::Result<UctEngine> {
        config.validate()?;
        // One pruner (and one cache per thread) per distinct spec.
        let mut specs: Vec<String> = Vec::new();
        let mut slot_of = |s: &str| match specs.iter().position(|x| x == s) {
            Some(i) => i,
            None => {
                specs.push(s.to_string());
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
            .map(|s| resolve_pruner(s, seed))
            .collect::<anyhow::Result<_>>()?;
        if let Some(v) = value.filter(|v| !pruners[v.slot].has_value()) {
            anyhow::bail!(
                "value={}: this network has no value head (train one with `akushu train --value-channels N`)",
                specs[v.slot]
            );
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

    /// The policy network's move probabilities for `color` at the current position, every
    /// point then pass, as the search's prior reads them (`1 - badness`, with the history
    /// the search gives it): -1 where the game layer forbids the move (occupied, suicide,
    /// superko), 0 for the pass (the network rates board points only). `None` without a
    /// policy network.
    fn network_policy(&self, color: Color) -> Option<Vec<f32>> {
        let net = self.policy_net.as_ref()?;
        let board = self.game.board();
        let mut bad = [0f32; NN];
        let last = given_last(self.config.history, self.last_two_moves());
        rate(&**net, board, color, last, &mut bad);
        let allowed = self.root_allowed(color);
        let mut out: Vec<f32> = (0..NN)
            .map(|i| {
                if allowed & bit(i) == 0 {
                    -1.0
                } else {
                    (1.0 - bad[i]).clamp(0.0, 1.0)
                }
            })
            .collect();
        out.push(0.0);
        Some(out)
    }

    /// Each point's expected final owner for `color` over the simulations' final boards,
    /// when outcomes are tracked and some simulation ended in a counted board.
    fn playout_ownership(&self, color: Color) -> Option<[f32; NN]> {
        let mut black = [0u64; NN];
        let mut white = [0u64; NN];
        let mut n = 0;
        for t in &self.trees {
            let o = t.outcomes()?;
            n += o.score(outcomes::ROOT).n;
            let (b, w) = o.owners();
            for i in 0..NN {
                black[i] += u64::from(b[i]);
                white[i] += u64::from(w[i]);
            }
        }
        if n == 0 {
            return None;
        }
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        Some(std::array::from_fn(|i| {
            sign * (black[i] as f64 - white[i] as f64) as f32 / n as f32
        }))
    }

    /// The value network's ownership for `to_move` in `board` after `last` (its view), where
    /// the network has an ownership head.
    fn network_owners(&self, board: &Board, to_move: Color, last: LastMoves) -> Option<[f32; NN]> {
        let net = self.value_net.as_ref()?;
        owners(
            &**net,
            board,
            to_move,
            given_last(self.config.history, last),
        )
    }

    /// The score lead for `color` that the value network's ownership head gives after
    /// `mv` (or at the root, `None`): the expected area difference less komi, with the
    /// spread the owners' uncertainty gives when points are counted independently
    /// (`sqrt(sum of 1 - o^2)`); KataGo's networks have a score head, ours count ownership.
    fn network_score(&self, color: Color, mv: Option<Move>) -> Option<ScoreEstimate> {
        let last = self.last_two_moves();
        let (own, sign) = match mv {
            None => (self.network_owners(self.game.board(), color, last)?, 1.0),
            Some(m) => {
                let mut board = *self.game.board();
                board.play_move(color, m).ok()?;
                let after = [last_move_code(m), last[0]];
                (self.network_owners(&board, color.opponent(), after)?, -1.0)
            }
        };
        let area: f32 = sign * own.iter().sum::<f32>();
        let komi = self.game.komi();
        let lead = if color == Color::Black {
            area - komi
        } else {
            area + komi
        };
        Some(ScoreEstimate {
            mean: lead,
            stdev: own.iter().map(|o| 1.0 - o * o).sum::<f32>().sqrt(),
            simulations: 1,
        })
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
        if let Some(share) = self.move_budget(color) {
            limit = Some(limit.map_or(share, |l| l.min(share)));
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

    /// The score estimate for `color` of the simulations through root move `slot` (or the
    /// root, [`outcomes::ROOT`]) over every tree; none when untracked or unvisited.
    fn score_through(&self, slot: usize, color: Color) -> Option<ScoreEstimate> {
        let mut sums = outcomes::ScoreSums {
            n: 0,
            sum2: 0,
            sq4: 0,
        };
        for t in &self.trees {
            sums.add(t.outcomes()?.score(slot));
        }
        let (mean, stdev) = sums.mean_stdev()?;
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        Some(ScoreEstimate {
            mean: (sign * mean) as f32,
            stdev: stdev as f32,
            simulations: sums.n,
        })
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

    /// Chooses a move (the most visited; ties to the higher win count, then lower index).
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
        let most_visited = |skip_pass: bool| {
            let mut best: Option<(usize, u32, f32)> = None;
            for (i, &(v, w, _, _)) in root_stats.iter().enumerate() {
                if v == 0 || (skip_pass && i == PASS_INDEX) {
                    continue;
                }
                if best.is_none_or(|(_, bv, bw)| v > bv || (v == bv && w > bw)) {
                    best = Some((i, v, w));
                }
            }
            best
        };
        let mut best = most_visited(cleanup);
        if self.config.safe_pass
            && best.is_some_and(|(i, _, _)| i == PASS_INDEX)
            && self.pass_loses(color)
        {
            // A pass the opponent can answer with a pass would lose by the area count: play
            // the best board move instead, when the search has one.
            best = most_visited(true).or(best);
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
        if let Some(wr) = winrate
            && wr < self.config.resign
            && best.is_some_and(|(_, v, _)| v >= self.config.resign_visits)
        {
            return (EngineMove::Resign, stats);
        }
        (EngineMove::Play(mv), stats)
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

/// Waits for the search threads; the simulations they ran.
fn join_sum(handles: Vec<std::thread::ScopedJoinHandle<'_, u64>>) -> u64 {
    handles
        .into_iter()
        .map(|h| h.join().expect("search thread panicked"))
        .sum()
}

/// A lower confidence bound of a win rate `wr` measured over `n` simulations: the normal
/// approximation at about 95% (z = 1.96), so a move with few visits ranks below an equally
/// good one with many, as Leela Zero's `lcb` does.
fn winrate_lcb(wr: f32, n: u32) -> f32 {
    if n == 0 {
        return 0.0;
    }
    (wr - 1.96 * (wr * (1.0 - wr) / n as f32).sqrt()).clamp(0.0, 1.0)
}

impl Analyzer for UctEngine {
    fn analyze_until(&mut self, color: Color, deadline: Instant) -> u64 {
        self.game.set_to_move(color);
        self.track_outcomes();
        // No simulation cap: the deadline ends the chunk. The tree is always kept (even with
        // reuse off) so that the chunks of one analysis add up.
        self.run_search(color, u64::MAX, Some(deadline), true);
        self.last_sims
    }

    fn candidates(&self, color: Color, max_pv: usize) -> Vec<Candidate> {
        let totals = self.root_totals();
        let first = &self.trees[0];
        let children = first.root_children();
        // The prior: the policy network's probability of the move where the engine has one
        // (as KataGo reports it); else each candidate's share of the prior visits the root's
        // children got at creation (heuristic and soft-pruning priors), and an engine
        // without priors gives every candidate the same share.
        let network = self.network_policy(color);
        let prior_total: u32 = totals.iter().map(|t| t.3).sum();
        let uniform = 1.0 / children.len().max(1) as f32;
        let mut out: Vec<Candidate> = totals
            .iter()
            .enumerate()
            .filter(|(_, t)| t.2 && t.0 > 0)
            .map(|(i, &(visits, wins, _, prior_visits))| {
                let prior = match &network {
                    Some(p) => p[i].max(0.0),
                    None if prior_total > 0 => prior_visits as f32 / prior_total as f32,
                    None => uniform,
                };
                let mv = Move::from_index(i).expect("root child index");
                let winrate = wins / visits as f32;
                // The first thread's tree gives the variation; a move only other threads
                // expanded shows itself alone.
                let pv = children
                    .iter()
                    .position(|n| n.mv() == i)
                    .map(|k| first.principal_variation(k, max_pv.max(1)))
                    .filter(|pv| !pv.is_empty())
                    .unwrap_or_else(|| vec![mv]);
                Candidate {
                    mv,
                    visits,
                    winrate,
                    prior,
                    lcb: winrate_lcb(winrate, visits),
                    pv,
                    score: self
                        .score_through(i, color)
                        .or_else(|| self.network_score(color, Some(mv))),
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.visits
                .cmp(&a.visits)
                .then(b.winrate.total_cmp(&a.winrate))
                .then(a.mv.index().cmp(&b.mv.index()))
        });
        out
    }

    fn unvisited(&self, _color: Color) -> Vec<Move> {
        let totals = self.root_totals();
        (0..totals.len())
            .filter(|&i| totals[i].2 && totals[i].0 == 0)
            .map(|i| Move::from_index(i).expect("root child index"))
            .collect()
    }

    fn ownership(&self, color: Color) -> Option<[f32; NN]> {
        self.playout_ownership(color)
            .or_else(|| self.network_owners(self.game.board(), color, self.last_two_moves()))
    }

    fn root_score(&self, color: Color) -> Option<ScoreEstimate> {
        self.score_through(outcomes::ROOT, color)
            .or_else(|| self.network_score(color, None))
    }

    fn analyze_sims(&mut self, color: Color, sims: u64) -> u64 {
        self.game.set_to_move(color);
        self.track_outcomes();
        self.run_search(color, sims, None, true);
        self.last_sims
    }

    fn root_policy(&self, color: Color) -> Option<Vec<f32>> {
        if let Some(p) = self.network_policy(color) {
            return Some(p);
        }
        let totals = self.root_totals();
        let prior_total: u32 = totals.iter().filter(|t| t.2).map(|t| t.3).sum();
        let children = totals.iter().filter(|t| t.2).count();
        if children == 0 {
            return None;
        }
        Some(
            totals
                .iter()
                .map(|&(_, _, present, prior)| match (present, prior_total) {
                    (false, _) => -1.0,
                    (true, 0) => 1.0 / children as f32,
                    (true, total) => prior as f32 / total as f32,
                })
                .collect(),
        )
    }

    fn genmove_analyze(
        &mut self,
        color: Color,
        max_pv: usize,
    ) -> (EngineMove, MoveStats, Vec<Candidate>) {
        self.track_outcomes();
        // The root is read before the move is played: playing moves the root down the tree.
        self.genmove_with(color, false, |e| e.candidates(color, max_pv))
    }
}

impl Engine for UctEngine {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, komi: f32) {
        self.game = Game::new(komi);
        self.reset_trees();
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
        Ok(())
    }

    fn analyzer(&mut self) -> Option<&mut dyn Analyzer> {
        // Analysis reads the trees at the game's position.
        self.sync_trees();
        Some(self)
    }

    fn set_time_control(&mut self, control: TimeControl) {
        self.clocks = [Clock::new(control); 2];
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{NO_POINT, Position};
    use crate::net::NetPruner;
    use crate::net::curve::PositionScorer;
    use crate::net::data::sgf_positions;
    use crate::net::encode::NetInput;
    use crate::prune::PruneContext;

    /// `uct` with `sims` simulations, expansion at the first visit, a cache of `cache`
    /// entries and tree pruning of the 3 worst moves from the root by `pruner`.
    fn pruning_engine(pruner: &str, sims: u32, cache: usize, history: bool) -> UctEngine {
        let config = UctConfig {
            sims,
            expand: 1,
            cache,
            history,
            prune: Some(TreePrune {
                pruner: pruner.into(),
                x: 3,
                depth: 0,
            }),
            ..UctConfig::default()
        };
        UctEngine::new(config, 5).unwrap()
    }

    /// A value-only PUCT search over the distilled network (policy, value and ownership
    /// heads), `sims` a move.
    fn value_search(sims: u32) -> UctEngine {
        let net = "nnq:models/cnn-distilled-b6c96-prelim".to_string();
        let config = UctConfig {
            sims,
            select: Select::Puct,
            policy: Some(net.clone()),
            value: Some(net),
            value_mix: 1.0,
            ..UctConfig::default()
        };
        UctEngine::new(config, 3).unwrap()
    }

    /// A move's own work after its search (the tree moved to the reply) runs on the clock:
    /// the self-counted clock is charged the whole move, and the next budget keeps that work
    /// back beside `time_safety`.
    #[test]
    fn the_work_after_a_search_is_counted_and_kept_back() {
        let mut e = value_search(64);
        e.set_time_control(TimeControl::Absolute { main: 1000.0 });
        let (_, stats) = e.genmove(Color::Black);
        let spent = 1000.0 - e.clocks[Color::Black.idx()].left;
        assert!(
            (spent - (stats.seconds + e.after_search)).abs() < 1e-9,
            "charged {spent}: the search's {} s and the {} s after it",
            stats.seconds,
            e.after_search
        );
        // A move whose work after the search took 2 s: the next budget is 2 s shorter.
        e.after_search = 2.0;
        let clock = e.clocks[Color::White.idx()];
        let want = clock.budget(0, e.config.time_safety + 2.0).unwrap();
        assert!(want < clock.budget(0, e.config.time_safety).unwrap() - 1.9);
        assert_eq!(e.move_budget(Color::White), Some(want));
    }

    /// An engine's own reply leaves the trees at the position it searched (copying the
    /// reply's subtree then would run on its clock); the opponent's answer moves them down
    /// both moves at once, to the tree that following each move in turn gives.
    #[test]
    fn the_trees_follow_a_reply_with_the_answer_to_it() {
        let root_stats = |e: &UctEngine| -> Vec<(usize, u32, f32)> {
            e.trees[0]
                .root_children()
                .iter()
                .map(|c| (c.mv(), c.real_visits(), c.real_wins()))
                .collect()
        };
        let (mut step, mut path) = (value_search(400), value_search(400));
        let EngineMove::Play(reply) = step.genmove(Color::Black).0 else {
            panic!("a move")
        };
        assert_eq!(path.genmove(Color::Black).0, EngineMove::Play(reply));
        assert_eq!(path.pending, vec![(Color::Black, reply)], "the trees wait");
        assert!(
            path.trees[0].root().real_visits() >= 400,
            "still the searched root"
        );
        // Move by move: the reply's subtree first, then the answer's within it.
        step.sync_trees();
        let answer = step.trees[0]
            .root_children()
            .iter()
            .max_by_key(|c| c.real_visits())
            .map(|c| Move::from_index(c.mv()).unwrap())
            .unwrap();
        step.play(Color::White, answer).unwrap();
        path.play(Color::White, answer).unwrap();
        assert!(path.pending.is_empty());
        assert!(path.trees[0].node_count() > 1, "the answer's subtree kept");
        assert_eq!(path.trees[0].node_count(), step.trees[0].node_count());
        assert_eq!(root_stats(&path), root_stats(&step));
    }

    /// A value-only search counts no final boards, so analysis' ownership and scores come from
    /// the network's ownership head, for the side asked: with a black wall down the E column
    /// and two white stones in a corner, black leads by most of the board and white trails by
    /// as much.
    #[test]
    fn a_value_only_search_answers_ownership_and_score_from_its_network() {
        let mut e = value_search(64);
        for row in 1..=9 {
            e.play(Color::Black, Move::from_gtp(&format!("E{row}")).unwrap())
                .unwrap();
            let white = match row {
                1 => "J1",
                2 => "J2",
                _ => "pass",
            };
            e.play(Color::White, Move::from_gtp(white).unwrap())
                .unwrap();
        }
        e.analyze_sims(Color::Black, 64);
        let black = e
            .root_score(Color::Black)
            .expect("a score from the network");
        let white = e.root_score(Color::White).unwrap();
        assert!(black.mean > 10.0, "black's lead {}", black.mean);
        assert!(white.mean < -10.0, "white's lead {}", white.mean);
        let own = e.ownership(Color::Black).unwrap();
        let e5 = Move::from_gtp("E5").unwrap().index();
        let a5 = Move::from_gtp("A5").unwrap().index();
        assert!(
            own[e5] > 0.5 && own[a5] > 0.3,
            "black's wall and its side: {own:?}"
        );
        let white_view = e.ownership(Color::White).unwrap();
        assert!(white_view[e5] < -0.5, "{white_view:?}");
        let candidates = e.candidates(Color::Black, 1);
        assert!(!candidates.is_empty());
        for c in &candidates {
            let s = c.score.expect("every candidate gets the network's score");
            assert!(s.mean > 0.0, "{:?}: black still leads: {}", c.mv, s.mean);
        }
    }

    /// Two recorded games (one with passes) as `eval` reads them: dataset positions with
    /// their last moves and ko points.
    fn recorded_positions() -> Vec<Position> {
        let files =
            ["ogs_style.sgf", "passes.sgf"].map(|f| format!("tests/fixtures/sgf/{f}").into());
        let (positions, skipped) = sgf_positions(&files);
        assert_eq!(skipped, []);
        positions
    }

    /// For each network kind the search can use, the pruner spec and the name `eval --model`
    /// takes for the same network.
    const NETWORKS: [(&str, &str); 5] = [
        (
            "nn:models/cnn-human-5x32-gpu2",
            "models/cnn-human-5x32-gpu2",
        ),
        (
            "nnq:models/cnn-human-5x32-gpu2",
            "nnq:models/cnn-human-5x32-gpu2",
        ),
        (
            "sym2:nnq:models/cnn-human-5x32-gpu2",
            "sym2:nnq:models/cnn-human-5x32-gpu2",
        ),
        ("nn:models/mlp-planes", "models/mlp-planes"),
        ("nn:models/default", "models/default"),
    ];

    /// Searches every position of the recorded games and checks what the tree's pruner
    /// rated at the root, and at the child the game went on to, against `eval`'s scores
    /// for the same position and history.
    #[test]
    fn the_search_rates_positions_as_eval_does_for_every_network_kind() {
        let positions = recorded_positions();
        for (spec_name, eval_name) in NETWORKS {
            let eval_net = NetPruner::load_named(eval_name).unwrap();
            // A cache large enough that no later position evicts the one checked.
            let mut engine = pruning_engine(spec_name, 400, 1 << 18, true);
            let (mut roots, mut children) = (0, 0);
            let mut over = None;
            for (k, pos) in positions.iter().enumerate() {
                if k == 0 || positions[k - 1].game != pos.game {
                    engine.new_game(6.5);
                }
                if pos.last_moves[..2] == [PASS_INDEX as u8; 2] || over == Some(pos.game) {
                    // Two passes ended the game (the record plays on): nothing to search.
                    over = Some(pos.game);
                    continue;
                }
                let board = pos.board();
                // The search keys by the game's board, which carries the ko point.
                let root = *engine.game.board();
                assert_eq!(root.cells(), board.cells(), "{spec_name}: {k}");
                engine.analyze(pos.color());
                let slot = &engine.workers[0].slots[0];
                let mut want = [0f32; NN];
                eval_net.score(pos, &board, &mut want);
                let last = [pos.last_moves[0], pos.last_moves[1]];
                let got = slot.cached(&root, pos.color(), last);
                assert_eq!(got, Some(&want), "{spec_name}: root of position {k}");
                roots += 1;
                let mv = Move::from_index(pos.played as usize).unwrap();
                if let Some(next) = positions.get(k + 1).filter(|n| n.game == pos.game) {
                    let mut child = root;
                    if let Some(p) = mv.point() {
                        child.play(pos.color(), p).unwrap();
                    }
                    let next_last = [next.last_moves[0], next.last_moves[1]];
                    if let Some(got) = slot.cached(&child, next.color(), next_last) {
                        eval_net.score(next, &next.board(), &mut want);
                        assert_eq!(got, &want, "{spec_name}: child of position {k}");
                        children += 1;
                    }
                }
                engine.play(pos.color(), mv).unwrap();
            }
            assert!(roots > 12, "{roots} of {}", positions.len());
            assert!(
                children * 3 > roots,
                "{spec_name}: {children} children of {roots} checked"
            );
        }
    }

    /// Below depth 1 both last moves a node's position is rated with come from the tree's
    /// own path, newest first. For every network kind that reads the last moves, every
    /// position the search expanded (at any depth; searched from a recorded position whose
    /// history the record gives) is in the cache under its true last two moves, with the
    /// scores `eval` gives that position with that history.
    #[test]
    fn the_search_rates_every_depth_of_its_tree_with_the_true_last_moves() {
        let positions = recorded_positions();
        let k = 6;
        let pos = &positions[k];
        assert_eq!(pos.game, positions[0].game);
        let mut networks = 0;
        for (spec_name, eval_name) in NETWORKS {
            let eval_net = NetPruner::load_named(eval_name).unwrap();
            if !eval_net.reads_history() {
                continue;
            }
            networks += 1;
            // Narrow (the 60 worst moves pruned at every node) so that 2000 simulations
            // reach depth 4 and more.
            let config = UctConfig {
                sims: 2000,
                expand: 1,
                cache: 1 << 18,
                history: true,
                prune: Some(TreePrune {
                    pruner: spec_name.into(),
                    x: 60,
                    depth: 0,
                }),
                ..UctConfig::default()
            };
            let mut engine = UctEngine::new(config, 5).unwrap();
            engine.new_game(6.5);
            for p in &positions[..k] {
                engine.play(p.color(), p.played_move()).unwrap();
            }
            let root = *engine.game.board();
            assert_eq!(root.cells(), pos.board().cells());
            engine.analyze(pos.color());
            let slot = &engine.workers[0].slots[0];
            // Positions checked and positions not found in the cache, by depth.
            let (mut found, mut missing) = ([0usize; 8], [0usize; 8]);
            for line in engine.trees[0].expanded_lines() {
                let mut board = root;
                let mut color = pos.color();
                let mut last = pos.last_moves;
                for &mv in &line {
                    board
                        .play_move(color, Move::from_index(mv).unwrap())
                        .unwrap();
                    color = color.opponent();
                    last = [mv as u8, last[0], last[1], last[2]];
                }
                let depth = line.len().min(7);
                let Some(got) = slot.cached(&board, color, [last[0], last[1]]) else {
                    missing[depth] += 1;
                    continue;
                };
                let at = Position {
                    cells: *board.cells(),
                    to_move: color as u8,
                    last_moves: last,
                    ko: board.ko_point().map_or(NO_POINT, |p| p.index() as u8),
                    ..pos.clone()
                };
                let mut want = [0f32; NN];
                eval_net.score(&at, &at.board(), &mut want);
                assert_eq!(got, &want, "{spec_name}: the position after {line:?}");
                found[depth] += 1;
            }
            // The direct-mapped cache may have evicted a few entries; most must be there.
            for d in 0..8 {
                assert!(
                    missing[d] * 20 <= found[d] + missing[d],
                    "{spec_name}: depth {d}: {} of {} positions not rated with their last moves",
                    missing[d],
                    found[d] + missing[d]
                );
            }
            assert!(
                found[2] > 20 && found[3] > 5 && found[4] > 0,
                "{spec_name}: too shallow a tree to check: {found:?}"
            );
        }
        assert!(networks >= 3, "{networks} networks read the last moves");
    }

    /// `history=false` (the recorded presets) gives the networks no last moves, as before.
    #[test]
    fn history_off_rates_without_last_moves() {
        let positions = recorded_positions();
        let pos = &positions[3];
        let mut engine = pruning_engine("nnq:models/cnn-human-5x32-gpu2", 20, 4096, false);
        for p in &positions[..3] {
            engine
                .play(p.color(), Move::from_index(p.played as usize).unwrap())
                .unwrap();
        }
        engine.analyze(pos.color());
        let board = pos.board();
        let net = NetPruner::load_named("nnq:models/cnn-human-5x32-gpu2").unwrap();
        let mut blind = [0f32; NN];
        net.rate(
            &NetInput::from_context(&PruneContext {
                board: &board,
                to_move: pos.color(),
                recent: &[],
            }),
            &mut blind,
        );
        let slot = &engine.workers[0].slots[0];
        assert_eq!(
            slot.cached(&board, pos.color(), NO_LAST_MOVES),
            Some(&blind)
        );
        let mut seen = [0f32; NN];
        net.score(pos, &board, &mut seen);
        assert_ne!(seen, blind, "the last moves change this network's scores");
    }
}
