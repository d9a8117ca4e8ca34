//! The UCT engine's settings: [`UctConfig`] (every `uct:` spec key's field) and its parts:
//! pruning, widening, selection and parallel mode.

use super::*;
use crate::prune::name::PrunerName;

/// Tree pruning settings (`prune=KIND[:ARG]:X[@D]` in specs).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TreePrune {
    /// Pruner spec: `rule`, `random[:SEED]`, `nn[:MODEL]`, ... (see `search::pruners`).
    pub pruner: PrunerName,
    /// How many of the worst candidate moves to drop at each pruned node.
    pub x: usize,
    /// First depth pruned (0 = the root; the paper compared 0, 1, 2, 3).
    pub depth: u32,
}

/// Playout pruning settings (`playout_prune=KIND[:ARG]:SHARE`, `playout_eval=leaf|move`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlayoutPrune {
    /// Pruner spec, as for tree pruning.
    pub pruner: PrunerName,
    /// Share of the empty points the mover may never play (0.6 in the paper).
    pub share: f32,
    /// When the pruner is asked: once per tree leaf, or before every playout move.
    pub eval: PlayoutEval,
}

/// Soft pruning settings (`soft=KIND[:ARG]:N:X[@D]`): negative priors instead of deletion.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SoftPrune {
    /// Pruner spec, as for tree pruning.
    pub pruner: PrunerName,
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
    pub pruner: PrunerName,
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
    /// PUCT with the policy network's priors (AlphaZero, KataGo; [`crate::search::tree::Puct`]):
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
    /// The threads grow one shared tree, steered apart by virtual loss ([`crate::search::tree`]).
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
    /// Resign at once when the best move's win rate is below `resign` over at least this
    /// many simulations of its own, so one short search never resigns on noise.
    pub resign_visits: u32,
    /// Resign also when the best move's win rate was below `resign` on this many of the
    /// engine's own moves in a row, whatever their simulations (KataGo's
    /// `resignConsecTurns`; 0 = the `resign_visits` rule alone): at a short clock no search
    /// reaches `resign_visits`, and in a lost position PUCT spreads its visits over many
    /// moves, so the consecutive moves are the evidence that one search cannot be.
    pub resign_turns: u32,
    /// Choose the root move by the lower confidence bound of its win rate among the moves
    /// with at least this share of the most-visited move's visits (0 = the most visited):
    /// a move the search found better late, with fewer visits, can still be played.
    pub lcb: f32,
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
    /// Heuristic priors for new nodes ([`crate::search::priors`]); off in the paper's setup.
    pub priors: bool,
    /// Rule probabilities of `playout=heavy`.
    pub heavy: HeavyConfig,
    /// Network policy prior (`policy=nn[:MODEL]`): each new candidate starts with
    /// `policy_weight * sqrt(p)` won visits, p = 1 - the pruner's badness.
    pub policy: Option<PrunerName>,
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
    /// every simulation's result ([`crate::search::tree::ValueMix`]); name the same model as
    /// `policy` and `prune` and it costs no extra evaluation.
    pub value: Option<PrunerName>,
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
    /// each move at the time allocator's budget ([`crate::search::clock`]). Either limit makes games
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
            resign_turns: 3,
            lcb: 0.0,
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
            time_safety: crate::search::clock::DEFAULT_SAFETY,
            history: true,
        }
    }
}
