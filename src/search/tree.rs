//! The UCT tree and the simulation loop of the threads that grow it.
//!
//! Nodes live in one flat arena (32 bytes each, allocated zeroed once per tree, so untouched
//! pages cost nothing); a node's children are a contiguous block (`first .. first +
//! n_children`), so expansion is one block claim and selection walks a slice. Nothing is
//! allocated per simulation: the board is copied (a `Copy` struct), the path reuses one
//! `Vec`, pruner scores come from a fixed-size cache.
//!
//! A simulation: descend from the root by UCB1 (unvisited children first, in move order);
//! a leaf that has been visited `expand` times is expanded (candidates = legal moves that do
//! not fill the mover's own eye, minus tree-pruned ones, plus pass, which is never pruned)
//! and the descent continues; otherwise a playout runs from the leaf and its result is
//! backed up. Two passes in a row end the game inside the tree and are scored directly.
//!
//! Tree parallelism (Chaslot, Winands and van den Herik 2008; Fuego's and Pachi's lock-free
//! form): several [`Worker`]s share one [`Tree`]. Every statistic is one atomic word
//! (visits in the high half, wins in [`UNITS`] per win in the low half), so one `fetch_add` updates a
//! node and a reader always sees a consistent pair. A thread adds a *virtual loss* (a visit
//! without a win) to each node on its way down, which steers the other threads elsewhere
//! until its result arrives. A node is expanded by the one thread that moves its `first`
//! from 0 to [`EXPANDING`]; it claims a block of the arena with a compare-and-swap on the
//! length, writes the children and publishes the block with a release store; a thread that
//! finds a node being expanded plays out from it instead of waiting. With one thread no
//! virtual loss is added, so the search is the plain sequential UCT, simulation for
//! simulation.

use std::ops::Range;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, AtomicUsize};

use crate::analysis::TerritoryPlayout;
use crate::playout::heavy::{Heavy, HeavyConfig};
use crate::playout::{self, PlayoutConfig, PlayoutPolicy, Uniform};
use crate::prune::{LastMoves, NO_LAST_MOVES, cmp_best_first, last_point};
use crate::rules::{Bits, Board, Color, Move, NN, PASS_INDEX, Point, bit, score};
use crate::util::rng::FastRng;

use super::outcomes::Outcomes;
use super::pruning::{
    EveryMove, LeafMasked, PlayoutEval, PruneCount, PrunerSlot, drop_count, given_last, worst_mask,
    worst_share_mask,
};

/// Which policy plays the playouts out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayoutKind {
    /// Uniformly random legal moves that do not fill the mover's own eye.
    #[default]
    Uniform,
    /// A random best territory-gain move ([`crate::analysis::TerritoryPlayout`]).
    Territory,
    /// MoGo-style heavy playouts: captures, atari escapes and 3x3 shapes around the last
    /// moves first, self-ataris mostly refused ([`crate::playout::heavy`]).
    Heavy,
}

/// One visit in a node's packed statistics word.
const VISIT: u64 = 1 << 32;
/// Win units per win in a statistics word: a draw is half of them, and a result mixed with a
/// network's value ([`ValueMix`]) is rounded to one of them (at random, so without bias).
/// A power of two, so every count reads back exactly as a float.
pub const UNITS: u32 = 16;
/// `first` of a node whose children one thread is writing.
pub const EXPANDING: u32 = u32::MAX;

/// Packs visits and wins (in [`UNITS`]) into one statistics word.
fn pack(visits: u32, win_units: u32) -> u64 {
    (u64::from(visits) << 32) | u64::from(win_units)
}

/// Visits and wins of a statistics word.
fn unpack(word: u64) -> (u32, f32) {
    (
        (word >> 32) as u32,
        (word as u32) as f32 * (1.0 / UNITS as f32),
    )
}

/// One tree node: the move that led here and its statistics. Every field is atomic so the
/// threads of a tree-parallel search share nodes without locks; `mv`, `prior`,
/// `prior_units` and `value` are written once, before the node is published.
#[derive(Debug, Default)]
pub struct Node {
    /// Visits (prior included) in the high 32 bits, wins of the player who made `mv` in
    /// [`UNITS`] (draws count half, prior wins included) in the low 32.
    stats: AtomicU64,
    /// AMAF (RAVE) visits and wins, packed like `stats`: simulations through the parent in
    /// which the mover played `mv` later on, first at that point.
    amaf: AtomicU64,
    /// Index of the first child; 0 = not expanded (the root sits at 0, so no child can),
    /// [`EXPANDING`] = being expanded.
    first: AtomicU32,
    /// Prior wins given at creation, in [`UNITS`] (counted in `stats`).
    prior_units: AtomicU32,
    /// Prior visits given at creation (soft pruning, heuristic priors; counted in `stats`).
    prior: AtomicU16,
    /// Black's win probability at this position by the value network, as
    /// `1 + round(p * 65534)`; 0 = not evaluated (set when the node is expanded).
    value: AtomicU16,
    /// The move's prior probability under PUCT selection, as `round(p * 65535)` (0 outside
    /// PUCT), written once at creation.
    policy: AtomicU16,
    /// The move leading here: flat index, 81 = pass.
    mv: AtomicU8,
    /// Number of children (at most 82: every point and pass).
    n_children: AtomicU8,
}

impl Node {
    /// (Re)initialises the node as a new leaf.
    fn init(&self, mv: usize, prior: u16, prior_units: u32) {
        self.stats
            .store(pack(u32::from(prior), prior_units), Relaxed);
        self.policy.store(0, Relaxed);
        self.amaf.store(0, Relaxed);
        self.first.store(0, Relaxed);
        self.prior_units.store(prior_units, Relaxed);
        self.prior.store(prior, Relaxed);
        self.value.store(0, Relaxed);
        self.mv.store(mv as u8, Relaxed);
        self.n_children.store(0, Relaxed);
    }

    /// The move leading here: flat index, [`PASS_INDEX`] = pass.
    pub fn mv(&self) -> usize {
        self.mv.load(Relaxed) as usize
    }
    /// Prior visits given at creation.
    pub fn prior(&self) -> u16 {
        self.prior.load(Relaxed)
    }
    /// The move's PUCT prior probability (0 outside PUCT).
    pub fn policy(&self) -> f32 {
        f32::from(self.policy.load(Relaxed)) * (1.0 / 65535.0)
    }
    fn set_policy(&self, p: f32) {
        self.policy
            .store((p.clamp(0.0, 1.0) * 65535.0).round() as u16, Relaxed);
    }
    /// Visits and wins, prior included, read together.
    pub fn stats(&self) -> (u32, f32) {
        unpack(self.stats.load(Relaxed))
    }
    /// Visits, prior included.
    pub fn visits(&self) -> u32 {
        self.stats().0
    }
    /// Wins, prior included.
    pub fn wins(&self) -> f32 {
        self.stats().1
    }
    /// AMAF visits and wins.
    pub fn amaf(&self) -> (u32, f32) {
        unpack(self.amaf.load(Relaxed))
    }
    /// Visits made by simulations (the prior taken out).
    pub fn real_visits(&self) -> u32 {
        self.visits() - u32::from(self.prior())
    }
    /// Wins made by simulations (the prior taken out).
    pub fn real_wins(&self) -> f32 {
        self.real_win_units() as f32 * (1.0 / UNITS as f32)
    }
    /// [`real_wins`](Self::real_wins) in [`UNITS`], exact.
    fn real_win_units(&self) -> u32 {
        (self.stats.load(Relaxed) as u32).saturating_sub(self.prior_units.load(Relaxed))
    }
    /// Black's win probability at this position by the value network, if it was evaluated.
    pub fn black_value(&self) -> Option<f32> {
        match self.value.load(Relaxed) {
            0 => None,
            v => Some((v - 1) as f32 / 65534.0),
        }
    }
    fn set_black_value(&self, p: f32) {
        self.value
            .store(1 + (p.clamp(0.0, 1.0) * 65534.0).round() as u16, Relaxed);
    }
    /// The arena range of the children, once they are published.
    fn children(&self) -> Option<Range<usize>> {
        match self.first.load(Acquire) {
            0 | EXPANDING => None,
            f => Some(f as usize..f as usize + self.n_children.load(Relaxed) as usize),
        }
    }
    pub fn is_expanded(&self) -> bool {
        self.children().is_some()
    }
    /// Copies `from`'s move, prior and statistics; the copy is a leaf until its children
    /// are copied too.
    fn copy_from(&self, from: &Node) {
        self.init(from.mv(), from.prior(), from.prior_units.load(Relaxed));
        self.stats.store(from.stats.load(Relaxed), Relaxed);
        self.amaf.store(from.amaf.load(Relaxed), Relaxed);
        self.value.store(from.value.load(Relaxed), Relaxed);
        self.policy.store(from.policy.load(Relaxed), Relaxed);
    }
}

/// A zeroed node arena: all-zero nodes are valid empty leaves, and the allocator hands out
/// zeroed pages lazily, so a large budget costs memory only as the tree grows.
fn zeroed_nodes(n: usize) -> Box<[Node]> {
    try_zeroed_nodes(n).unwrap_or_else(|| {
        std::alloc::handle_alloc_error(
            std::alloc::Layout::array::<Node>(n.max(1)).expect("node arena size"),
        )
    })
}

// The allocation error's message counts 32 bytes a node.
const _: () = assert!(std::mem::size_of::<Node>() == 32);

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

/// [`zeroed_nodes`], or `None` when the memory is not there (a low `ulimit -v`, many
/// engines at once): the caller says so, or searches without reuse, instead of aborting.
fn try_zeroed_nodes(n: usize) -> Option<Box<[Node]>> {
    let n = n.max(1);
    let layout = std::alloc::Layout::array::<Node>(n).expect("node arena size");
    // SAFETY: the layout has a non-zero size (n >= 1, `Node` is 32 bytes); the pointer comes
    // from the global allocator with exactly this layout, as `Box<[Node]>` frees it; and
    // `Node` holds only atomic integers, for which all-zero bytes are a valid value, so
    // every element is initialised.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<Node>();
        if ptr.is_null() {
            return None;
        }
        Some(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n)))
    }
}

/// Tree pruning from a depth: drop the `x` worst candidates at nodes at depth >= `depth`.
#[derive(Debug, Clone, Copy)]
pub struct TreePruning {
    pub slot: usize,
    pub x: usize,
    pub depth: u32,
}

/// Soft pruning: the `x` worst candidates at depth >= `depth` start with `visits` lost visits.
#[derive(Debug, Clone, Copy)]
pub struct SoftPruning {
    pub slot: usize,
    pub visits: u16,
    pub x: usize,
    pub depth: u32,
}

/// Playout pruning: forbid the worst `share` of the empty points.
#[derive(Debug, Clone, Copy)]
pub struct PlayoutPruning {
    pub slot: usize,
    pub share: f32,
    pub eval: PlayoutEval,
}

/// The numbers the search needs (resolved from `UctConfig`).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Visits before a node is expanded.
    pub expand: u32,
    /// UCB1 exploration constant.
    pub c: f32,
    /// Node budget of the tree.
    pub max_nodes: usize,
    /// Playout cap and komi (komi follows the game).
    pub playout: PlayoutConfig,
    /// Tree pruning, if any.
    pub prune: Option<TreePruning>,
    /// Soft pruning, if any.
    pub soft: Option<SoftPruning>,
    /// Playout pruning, if any.
    pub playout_prune: Option<PlayoutPruning>,
    /// The playout move generator (when there is no playout pruning).
    pub playout_kind: PlayoutKind,
    /// What the tree-pruning x counts.
    pub prune_count: PruneCount,
    /// Board moves tree pruning always leaves.
    pub keep_min: usize,
    /// RAVE equivalence parameter (0 = no RAVE): a child's AMAF value weighs
    /// `beta = n_amaf / (n_amaf + n + n * n_amaf / rave)` against its own win rate.
    pub rave: f32,
    /// Heuristic priors at expansion (michi's: even game, captures and escapes, 3x3
    /// shapes, distance to the last move, empty-area lines, self-atari).
    pub priors: bool,
    /// Rule probabilities of the heavy playout (`playout_kind = Heavy`).
    pub heavy: HeavyConfig,
    /// Network policy prior, if any.
    pub policy: Option<PolicyPrior>,
    /// PUCT selection (AlphaZero's and KataGo's rule) in place of UCB1/RAVE, if set.
    pub puct: Option<Puct>,
    /// The network value mixed into results, if any.
    pub value: Option<ValueMix>,
    /// Dirichlet noise in the root's policy prior, if any.
    pub root_noise: Option<RootNoise>,
    /// Progressive widening, if any.
    pub widen: Option<Widening>,
    /// Give the pruners the last two moves before each position they rate (a CNN's
    /// last-move planes, as training filled them); off, they see none (the presets
    /// recorded before this setting existed).
    pub history: bool,
}

/// Progressive widening: candidates ranked best first by a pruner; selection opens the
/// best `k(n)` of them (pass always open).
#[derive(Debug, Clone, Copy)]
pub struct Widening {
    pub slot: usize,
    pub k0: usize,
    pub base: f32,
    /// ln of the growth factor between openings.
    pub log_mult: f32,
}

impl Widening {
    /// Board candidates open at a node with `visits` visits.
    pub fn open(&self, visits: u32) -> usize {
        let n = visits as f32;
        if n < self.base {
            self.k0
        } else {
            self.k0 + 1 + ((n / self.base).ln() / self.log_mult) as usize
        }
    }
}

/// A network's value mixed into every simulation's result (AlphaGo's leaf evaluation):
/// `(1 - lambda) * playout + lambda * value`, the value being the network's win probability
/// at the deepest evaluated node of the simulation's path (the node expanded last on it,
/// whose evaluation the priors and pruning already paid for). `lambda = 1` runs no playouts.
#[derive(Debug, Clone, Copy)]
pub struct ValueMix {
    pub slot: usize,
    pub lambda: f32,
}

/// AlphaZero's root noise: at the root, the policy prior's probabilities become
/// `(1 - eps) * p + eps * eta`, `eta` a Dirichlet(`alpha`) draw over the root's board moves
/// (self-play diversity; needs a policy prior).
#[derive(Debug, Clone, Copy)]
pub struct RootNoise {
    pub eps: f32,
    pub alpha: f32,
}

/// A network's move probabilities as priors (michi's large-pattern prior): a candidate with
/// probability `p = 1 - badness` starts with `weight * sqrt(p)` visits, all of them wins.
#[derive(Debug, Clone, Copy)]
pub struct PolicyPrior {
    pub slot: usize,
    pub weight: f32,
}

/// PUCT selection (AlphaZero; KataGo's `cpuct` growth and first-play urgency): at a node
/// with `N` visits the child maximising `Q + c(N) * P * sqrt(N) / (1 + n)` is taken, `P` the
/// child's prior probability (the policy network's, renormalised over the candidates, or
/// uniform without one), `n` its visits and `Q` its mean result for the side to move. An
/// unvisited child's `Q` is the parent's own value less `fpu * sqrt(sum of the visited
/// children's P)` (Leela Zero's and KataGo's first-play urgency reduction), so the search
/// widens only as the moves it tried disappoint. `c(N) = c + c_log * ln((N + c_base) /
/// c_base)` grows the exploration with visits as KataGo's does.
///
/// Under PUCT a leaf is expanded on its first visit, and the simulation ends there: the
/// network evaluated the leaf for its children's priors, and its value (with playouts
/// mixed in when `value_mix < 1`) is the result backed up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Puct {
    pub c: f32,
    pub c_log: f32,
    pub c_base: f32,
    /// First-play urgency reduction below the root.
    pub fpu: f32,
    /// First-play urgency reduction at the root.
    pub fpu_root: f32,
    /// The pass's prior probability (the networks rate board points only); the board
    /// moves share the rest.
    pub pass_prior: f32,
}

impl Puct {
    /// The exploration weight at a node with `visits` visits.
    fn c_at(&self, visits: u32) -> f32 {
        if self.c_log == 0.0 {
            return self.c;
        }
        self.c + self.c_log * ((visits as f32 + self.c_base) / self.c_base).ln()
    }
}

/// What [`Worker::expand`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expansion {
    /// This call created the node's children.
    Made,
    /// Another thread (or an earlier simulation) had already published them.
    Exists,
    /// No children now: the node budget is spent, or another thread is writing them.
    Unavailable,
}

/// Simulations left to a search, shared by its threads.
#[derive(Debug)]
pub struct SimBudget(AtomicU64);

impl SimBudget {
    pub fn new(sims: u64) -> SimBudget {
        SimBudget(AtomicU64::new(sims))
    }
    /// Takes one simulation; false when none is left.
    fn take(&self) -> bool {
        self.0
            .fetch_update(Relaxed, Relaxed, |left| left.checked_sub(1))
            .is_ok()
    }
    /// Gives up what is left (another thread or the caller ends the search early).
    pub fn stop(&self) {
        self.0.store(0, Relaxed);
    }
}

/// A search tree and its root position; grown by one or more [`Worker`]s.
pub struct Tree {
    pub settings: Settings,
    nodes: Box<[Node]>,
    /// The arena compaction copies into (allocated at the first reuse).
    spare: Option<Box<[Node]>>,
    /// Nodes in use (`nodes[..len]`).
    len: AtomicUsize,
    root_board: Board,
    root_to_move: Color,
    root_passes: u8,
    /// Moves allowed at the root (the game layer's superko check); only applied when the
    /// root is expanded.
    root_allowed: Bits,
    /// The last two moves before the root, for heavy playouts, priors and the pruners.
    root_last: LastMoves,
    /// Whether descents add a virtual loss (several threads share the tree).
    virtual_loss: bool,
    /// Final scores and owners of the simulations since the root changed (analysis only).
    outcomes: Option<Box<Outcomes>>,
}

impl Tree {
    /// An empty-board tree; `shared` = several threads will grow it (virtual loss on).
    pub fn new(settings: Settings, shared: bool) -> Tree {
        Tree::try_new(settings, shared).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Tree::new`], or an error naming the arena's size and `max_nodes` when the memory
    /// for it cannot be had.
    pub fn try_new(settings: Settings, shared: bool) -> Result<Tree, TreeAllocError> {
        let n = settings.max_nodes.max(NN + 2);
        let nodes = try_zeroed_nodes(n).ok_or(TreeAllocError { nodes: n })?;
        let mut t = Tree {
            nodes,
            settings,
            spare: None,
            len: AtomicUsize::new(0),
            root_board: Board::new(),
            root_to_move: Color::Black,
            root_passes: 0,
            root_allowed: crate::rules::BOARD,
            root_last: NO_LAST_MOVES,
            virtual_loss: shared,
            outcomes: None,
        };
        t.reset(Board::new(), Color::Black, 0);
        Ok(t)
    }

    /// Throws the tree away and starts from this root.
    pub fn reset(&mut self, board: Board, to_move: Color, passes: u8) {
        self.nodes[0].init(PASS_INDEX, 0, 0);
        *self.len.get_mut() = 1;
        self.root_board = board;
        self.root_to_move = to_move;
        self.root_passes = passes;
        self.clear_outcomes();
    }

    /// Keeps the final score and owners of every simulation from now on (see
    /// [`Outcomes`]); they are cleared whenever the root changes.
    pub fn track_outcomes(&mut self) {
        if self.outcomes.is_none() {
            self.outcomes = Some(Box::default());
        }
    }

    /// The outcomes since the root last changed, when tracked.
    pub fn outcomes(&self) -> Option<&Outcomes> {
        self.outcomes.as_deref()
    }

    fn clear_outcomes(&self) {
        if let Some(o) = &self.outcomes {
            o.clear();
        }
    }

    /// Keeps the tree when its root already is this position, else resets.
    pub fn set_root(&mut self, board: &Board, to_move: Color, passes: u8, allowed: Bits) {
        if self.root_board != *board
            || self.root_to_move != to_move
            || self.root_passes.min(2) != passes.min(2)
            || self
                .root_children()
                .iter()
                .any(|n| n.mv() < NN && allowed & bit(n.mv()) == 0)
        {
            self.reset(*board, to_move, passes);
        }
        self.root_allowed = allowed;
    }

    /// Tells the tree the last two moves before the root, which heavy playouts, priors and
    /// the pruners answer.
    pub fn set_root_last(&mut self, last: LastMoves) {
        self.root_last = last;
    }

    /// Moves the root to the child reached by `mv` (tree reuse), keeping its subtree, or
    /// resets when that child was never expanded.
    pub fn advance(&mut self, color: Color, mv: Move) {
        self.advance_path(&[(color, mv)]);
    }

    /// Moves the root down `moves` (played in turn from the root) at once, keeping the
    /// subtree of the node they reach, or resets at their end when a node on the way was
    /// never expanded. Equal to advancing move by move, but only the last subtree is copied:
    /// after an engine's reply and the opponent's answer, a small one.
    pub fn advance_path(&mut self, moves: &[(Color, Move)]) {
        let (mut board, mut to_move, mut passes) =
            (self.root_board, self.root_to_move, self.root_passes);
        // The node reached so far; `None` once the path leaves the expanded tree.
        let mut node = Some(0);
        for &(color, mv) in moves {
            let legal = board.play_move(color, mv).is_ok();
            passes = if mv == Move::Pass {
                passes.saturating_add(1)
            } else {
                0
            };
            node = node
                .filter(|_| color == to_move && legal)
                .and_then(|n| self.nodes[n].children())
                .and_then(|kids| kids.into_iter().find(|&c| self.nodes[c].mv() == mv.index()))
                .filter(|&c| self.nodes[c].is_expanded());
            to_move = color.opponent();
        }
        // With root noise a reused root would keep the priors it got as an inner node: the
        // tree starts afresh so every root gets its noise.
        let reuse = self.settings.root_noise.is_none();
        match node {
            Some(c) if reuse && c != 0 && self.spare_ready() => {
                self.compact_from(c);
                self.root_board = board;
                self.root_to_move = to_move;
                self.root_passes = passes;
                self.clear_outcomes();
            }
            _ if moves.is_empty() => {}
            _ => self.reset(board, to_move, passes),
        }
    }

    /// Whether the spare arena compaction copies into is there, allocating it at the first
    /// reuse; without the memory for it the tree is reset instead of reused.
    fn spare_ready(&mut self) -> bool {
        if self.spare.is_none() {
            self.spare = try_zeroed_nodes(self.nodes.len());
        }
        self.spare.is_some()
    }

    /// Copies the subtree under `new_root` to the front of the spare arena (breadth first,
    /// children blocks stay contiguous) and swaps it in.
    fn compact_from(&mut self, new_root: usize) {
        let cap = self.nodes.len();
        let out = self.spare.take().unwrap_or_else(|| zeroed_nodes(cap));
        let root = &self.nodes[new_root];
        out[0].copy_from(root);
        // The new root keeps what simulations found, not the prior it was created with.
        out[0].prior.store(0, Relaxed);
        out[0].prior_units.store(0, Relaxed);
        out[0]
            .stats
            .store(pack(root.real_visits(), root.real_win_units()), Relaxed);
        // `source[k]` = the old index of the node copied to `out[k]`.
        let mut source = vec![new_root];
        let mut k = 0;
        while k < source.len() {
            if let Some(kids) = self.nodes[source[k]].children() {
                let first = source.len();
                for (j, old) in kids.clone().enumerate() {
                    out[first + j].copy_from(&self.nodes[old]);
                }
                source.extend(kids);
                out[k]
                    .n_children
                    .store((source.len() - first) as u8, Relaxed);
                out[k].first.store(first as u32, Relaxed);
            }
            k += 1;
        }
        *self.len.get_mut() = source.len();
        self.spare = Some(std::mem::replace(&mut self.nodes, out));
    }

    /// The root's children (empty before the first simulation).
    pub fn root_children(&self) -> &[Node] {
        self.nodes[0]
            .children()
            .map_or(&[][..], |kids| &self.nodes[kids])
    }

    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    pub fn node_count(&self) -> usize {
        self.len.load(Relaxed)
    }

    /// The principal variation through the root's child number `child` (an index into
    /// [`Tree::root_children`]): its move, then the most-visited child at each level (the
    /// first of equals), at most `max_len` moves, ending where the tree stops or the best
    /// child has one visit or none (a single visit is only the first try, not a choice).
    pub fn principal_variation(&self, child: usize, max_len: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut node = self.nodes[0]
            .children()
            .filter(|kids| child < kids.len())
            .map(|kids| kids.start + child);
        while let Some(i) = node.filter(|_| pv.len() < max_len) {
            let n = &self.nodes[i];
            pv.push(Move::from_index(n.mv()).expect("node move index"));
            node = n
                .children()
                .and_then(|kids| {
                    kids.max_by_key(|&c| (self.nodes[c].real_visits(), std::cmp::Reverse(c)))
                })
                .filter(|&c| self.nodes[c].real_visits() > 1);
        }
        pv
    }

    /// The moves from the root to every expanded node (the root's empty line included), for
    /// tests that replay the positions the search rated.
    #[cfg(test)]
    pub(crate) fn expanded_lines(&self) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        let mut stack = vec![(0usize, Vec::new())];
        while let Some((i, line)) = stack.pop() {
            let Some(kids) = self.nodes[i].children() else {
                continue;
            };
            for k in kids {
                let mut next = line.clone();
                next.push(self.nodes[k].mv());
                stack.push((k, next));
            }
            out.push(line);
        }
        out
    }

    /// Claims `count` arena slots when at least `need` are free; the first slot's index.
    fn claim(&self, need: usize, count: usize) -> Option<usize> {
        let mut len = self.len.load(Relaxed);
        loop {
            if len + need > self.settings.max_nodes.max(NN + 2).min(self.nodes.len()) {
                return None;
            }
            match self
                .len
                .compare_exchange_weak(len, len + count, Relaxed, Relaxed)
            {
                Ok(_) => return Some(len),
                Err(now) => len = now,
            }
        }
    }
}

/// One search thread: its generator, scratch space and pruner caches. It grows a [`Tree`]
/// it may share with other workers.
pub struct Worker {
    rng: FastRng,
    path: Vec<u32>,
    /// The board moves of the current simulation, as (colour index, point), for RAVE.
    trace: Vec<(u8, u8)>,
    /// Pruners with their caches; the settings refer to them by index.
    pub slots: Vec<PrunerSlot>,
}

impl Worker {
    pub fn new(slots: Vec<PrunerSlot>, rng: FastRng) -> Worker {
        Worker {
            rng,
            path: Vec::with_capacity(256),
            trace: Vec::with_capacity(512),
            slots,
        }
    }

    /// Restarts the worker's random stream (the engine's [`super::Engine::reseed`]).
    pub fn reseed(&mut self, rng: FastRng) {
        self.rng = rng;
    }

    /// The last two moves before the current leaf (newest first): the moves of the path's
    /// nodes, then the root's history.
    fn last_moves(&self, tree: &Tree) -> LastMoves {
        let mut out = NO_LAST_MOVES;
        let from_path = self
            .path
            .iter()
            .skip(1)
            .rev()
            .map(|&i| tree.nodes[i as usize].mv() as u8);
        for (slot, mv) in out.iter_mut().zip(from_path.chain(tree.root_last)) {
            *slot = mv;
        }
        out
    }

    /// The last two board moves before the current leaf (`None` = a pass or no move), as
    /// heavy playouts and priors read them.
    fn last_points(&self, tree: &Tree) -> [Option<Point>; 2] {
        self.last_moves(tree).map(last_point)
    }

    /// The history the pruners get for the current leaf: its last moves, or none when the
    /// settings turn history off.
    fn pruner_last(&self, tree: &Tree) -> LastMoves {
        given_last(tree.settings.history, self.last_moves(tree))
    }

    /// Runs simulations on `tree` while `budget` lasts and `deadline` has not passed;
    /// returns how many this worker ran. The clock is read every 64 simulations, or every
    /// 4 under PUCT, whose simulations each cost a network evaluation (tens of
    /// microseconds and more), so the search stops within a few of them of the deadline.
    pub fn search(
        &mut self,
        tree: &Tree,
        budget: &SimBudget,
        deadline: Option<std::time::Instant>,
    ) -> u64 {
        let every = if tree.settings.puct.is_some() { 4 } else { 64 };
        let mut done = 0;
        loop {
            if done % every == 0
                && done > 0
                && deadline.is_some_and(|d| std::time::Instant::now() >= d)
            {
                return done;
            }
            if !budget.take() {
                return done;
            }
            self.simulate(tree);
            done += 1;
        }
    }

    /// One simulation: descend, maybe expand, play out, back up.
    fn simulate(&mut self, tree: &Tree) {
        let mut board = tree.root_board;
        let mut color = tree.root_to_move;
        let mut passes = tree.root_passes;
        let mut node = 0usize;
        let mut depth = 0u32;
        self.path.clear();
        self.path.push(0);
        self.trace.clear();
        let rave = tree.settings.rave > 0.0;
        let puct = tree.settings.puct.is_some();
        let vl = tree.virtual_loss;
        if vl {
            tree.nodes[0].stats.fetch_add(VISIT, Relaxed);
        }
        let mix = tree.settings.value;
        // Black's final margin (none when a value alone ended the simulation) and black's
        // win probability by the value network at the leaf.
        let (margin, value) = loop {
            if passes >= 2 {
                break (
                    Some(score::area_margin(&board, tree.settings.playout.komi)),
                    None,
                );
            }
            let n = &tree.nodes[node];
            if !n.is_expanded() {
                // This simulation's own virtual visit does not count towards expansion; under
                // PUCT every leaf is expanded on its first visit.
                let due =
                    puct || node == 0 || n.real_visits() - u32::from(vl) >= tree.settings.expand;
                // Descend into the children, or end the simulation at this leaf: under PUCT
                // the expansion that evaluated the leaf also ends the simulation with its value.
                let descend = due
                    && match self.expand(tree, node, &board, color, depth) {
                        Expansion::Exists => true,
                        Expansion::Made => !puct,
                        Expansion::Unavailable => false,
                    };
                if !descend {
                    let value = mix.and_then(|_| self.path_value(tree));
                    if value.is_some() && mix.is_some_and(|m| m.lambda >= 1.0) {
                        break (None, value);
                    }
                    break (Some(self.playout(tree, &mut board, color)), value);
                }
            }
            node = self.select(tree, node);
            if vl {
                tree.nodes[node].stats.fetch_add(VISIT, Relaxed);
            }
            let mv = tree.nodes[node].mv();
            if mv == PASS_INDEX {
                board.play_move(color, Move::Pass).expect("pass is legal");
                passes += 1;
            } else {
                board.play_legal(color, Point::new(mv));
                passes = 0;
                if rave {
                    self.trace.push((color.idx() as u8, mv as u8));
                }
            }
            color = color.opponent();
            depth += 1;
            self.path.push(node as u32);
        };
        if let (Some(o), Some(margin)) = (&tree.outcomes, margin) {
            let first = self.path.get(1).map(|&c| tree.nodes[c as usize].mv());
            o.record(first, margin, &board);
        }
        // Black's result in win units: a win, a draw (half) or a loss, mixed with the value.
        let counted = margin.map(|m| {
            if m > 0.0 {
                1.0
            } else if m < 0.0 {
                0.0
            } else {
                0.5
            }
        });
        let black = match (counted, value, mix) {
            (Some(z), Some(v), Some(m)) => self.round_units((1.0 - m.lambda) * z + m.lambda * v),
            (None, Some(v), _) => self.round_units(v),
            (Some(z), _, _) => (z * UNITS as f32) as u32,
            (None, None, _) => unreachable!("a simulation ends counted or valued"),
        };
        // Back up: the node at depth k was reached by a move of the root's side when k is odd.
        let visit = if vl { 0 } else { VISIT };
        let root_side_black = tree.root_to_move == Color::Black;
        for (k, &i) in self.path.iter().enumerate() {
            let mover_is_black = (k % 2 == 1) == root_side_black;
            let r = if mover_is_black { black } else { UNITS - black };
            tree.nodes[i as usize]
                .stats
                .fetch_add(visit + u64::from(r), Relaxed);
        }
        if rave {
            self.update_amaf(tree, black);
        }
    }

    /// Black's win probability at the deepest node of the path the value network rated.
    fn path_value(&self, tree: &Tree) -> Option<f32> {
        self.path
            .iter()
            .rev()
            .find_map(|&i| tree.nodes[i as usize].black_value())
    }

    /// `p` (0..=1) in win units, rounded up with probability equal to the fraction, so the
    /// mean of many results is `p` exactly.
    fn round_units(&mut self, p: f32) -> u32 {
        let x = p.clamp(0.0, 1.0) * UNITS as f32;
        let floor = x.floor();
        let up = (self.rng.below(1 << 16) as f32) < (x - floor) * 65536.0;
        (floor as u32 + u32::from(up)).min(UNITS)
    }

    /// RAVE back-up: at every node of the path, each child whose move its mover played
    /// first at that point later in the simulation (tree or playout) counts the result.
    fn update_amaf(&mut self, tree: &Tree, black: u32) {
        // 0 = nobody played the point, else 1 + the colour index of the first to play it
        let mut first = [0u8; NN];
        for &(c, p) in &self.trace {
            let f = &mut first[p as usize];
            if *f == 0 {
                *f = c + 1;
            }
        }
        let root_side_black = tree.root_to_move == Color::Black;
        for k in 0..self.path.len() {
            let Some(kids) = tree.nodes[self.path[k] as usize].children() else {
                continue;
            };
            // the children of the node at depth k are moves of the side to move there
            let mover_black = (k % 2 == 0) == root_side_black;
            let mover = if mover_black {
                Color::Black
            } else {
                Color::White
            };
            let r = if mover_black { black } else { UNITS - black };
            let tag = mover.idx() as u8 + 1;
            for ch in &tree.nodes[kids] {
                let mv = ch.mv();
                if mv < NN && first[mv] == tag {
                    ch.amaf.fetch_add(VISIT + u64::from(r), Relaxed);
                }
            }
        }
    }

    /// UCB1 over the children of an expanded node: the first unvisited child, else the
    /// highest `wins/visits + c * sqrt(ln N / visits)`.
    #[inline]
    fn select(&self, tree: &Tree, node: usize) -> usize {
        if let Some(p) = tree.settings.puct {
            return self.select_puct(tree, node, p);
        }
        if tree.settings.rave > 0.0 {
            return self.select_rave(tree, node);
        }
        let parent = &tree.nodes[node];
        let kids = parent.children().expect("selection at an expanded node");
        let first = kids.start;
        let parent_visits = parent.visits();
        let scale = tree.settings.c * (parent_visits.max(1) as f32).ln().sqrt();
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        for (k, ch) in open_children(&tree.settings, &tree.nodes[kids], parent_visits) {
            let (visits, wins) = ch.stats();
            if visits == 0 {
                return first + k;
            }
            let inv = 1.0 / visits as f32;
            let value = wins * inv + scale * inv.sqrt();
            if value > best_value {
                best_value = value;
                best = k;
            }
        }
        first + best
    }

    /// PUCT selection ([`Puct`]): the child maximising `Q + c(N) * P * sqrt(N) / (1 + n)`,
    /// unvisited children valued at the first-play urgency; ties go to the earlier child.
    fn select_puct(&self, tree: &Tree, node: usize, p: Puct) -> usize {
        let parent = &tree.nodes[node];
        let kids = parent.children().expect("selection at an expanded node");
        let first = kids.start;
        let (parent_visits, parent_wins) = parent.stats();
        // The parent's statistics count wins for the player who moved into it; the children
        // are moves of the other side.
        let parent_q = if parent_visits > 0 {
            1.0 - parent_wins / parent_visits as f32
        } else {
            0.5
        };
        let children = &tree.nodes[kids];
        let visited_policy: f32 = children
            .iter()
            .filter(|ch| ch.visits() > 0)
            .map(Node::policy)
            .sum();
        let reduction = if node == 0 { p.fpu_root } else { p.fpu };
        let fpu = parent_q - reduction * visited_policy.sqrt();
        let scale = p.c_at(parent_visits) * (parent_visits.max(1) as f32).sqrt();
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        for (k, ch) in open_children(&tree.settings, children, parent_visits) {
            let (visits, wins) = ch.stats();
            let q = if visits > 0 {
                wins / visits as f32
            } else {
                fpu
            };
            let value = q + scale * ch.policy() / (1.0 + visits as f32);
            if value > best_value {
                best_value = value;
                best = k;
            }
        }
        first + best
    }

    /// RAVE selection (Gelly and Silver 2007, michi's form): the child maximising
    /// `(1 - beta) * wins/visits + beta * amaf_wins/amaf_visits + c * sqrt(ln N / visits)`,
    /// `beta = n_amaf / (n_amaf + n + n * n_amaf / rave)`; a child with neither visits nor
    /// AMAF visits is taken first.
    fn select_rave(&self, tree: &Tree, node: usize) -> usize {
        let parent = &tree.nodes[node];
        let kids = parent.children().expect("selection at an expanded node");
        let first = kids.start;
        let equiv = tree.settings.rave;
        let parent_visits = parent.visits();
        let scale = tree.settings.c * (parent_visits.max(1) as f32).ln().sqrt();
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        for (k, ch) in open_children(&tree.settings, &tree.nodes[kids], parent_visits) {
            let (visits, wins) = ch.stats();
            let (amaf_visits, amaf_wins) = ch.amaf();
            if visits == 0 && amaf_visits == 0 {
                return first + k;
            }
            let (n, na) = (visits as f32, amaf_visits as f32);
            let q = if visits > 0 { wins / n } else { 0.0 };
            let mut value = if amaf_visits > 0 {
                let beta = na / (na + n + n * na / equiv);
                beta * (amaf_wins / na) + (1.0 - beta) * q
            } else {
                q
            };
            value += scale / n.max(1.0).sqrt();
            if value > best_value {
                best_value = value;
                best = k;
            }
        }
        first + best
    }

    /// Creates the children of `node`, saying whether this call made them, another thread
    /// or simulation already had, or none can be had now (the node budget is spent, or
    /// another thread is still writing them).
    fn expand(
        &mut self,
        tree: &Tree,
        node: usize,
        board: &Board,
        color: Color,
        depth: u32,
    ) -> Expansion {
        let target = &tree.nodes[node];
        match target
            .first
            .compare_exchange(0, EXPANDING, Acquire, Acquire)
        {
            Ok(_) => {}
            Err(EXPANDING) => return Expansion::Unavailable,
            Err(_) => return Expansion::Exists,
        }
        let allowed = if node == 0 {
            tree.root_allowed
        } else {
            crate::rules::BOARD
        };
        let candidates = board.candidates(color, allowed);
        let cand = candidates.as_slice();
        let n = cand.len();
        // The budget check comes before the pruners run, so a full tree costs no evaluations.
        let cap = tree.settings.max_nodes.max(NN + 2).min(tree.nodes.len());
        if tree.len.load(Relaxed) + n + 1 > cap {
            target.first.store(0, Release);
            return Expansion::Unavailable;
        }
        let s = tree.settings;
        let net_last = self.pruner_last(tree);
        let mut dropped: Bits = 0;
        if let Some(tp) = s.prune.filter(|tp| depth >= tp.depth) {
            let drop = drop_count(n, tp.x, s.prune_count, s.keep_min);
            let scores = self.slots[tp.slot].scores(board, color, net_last);
            dropped = worst_mask(&cand[..n], scores, drop);
        }
        let mut soft: Bits = 0;
        let mut soft_visits = 0;
        if let Some(sp) = s.soft.filter(|sp| depth >= sp.depth && sp.visits > 0) {
            let mut kept = [0u8; NN];
            let mut m = 0;
            for &c in &cand[..n] {
                if dropped & bit(c as usize) == 0 {
                    kept[m] = c;
                    m += 1;
                }
            }
            let scores = self.slots[sp.slot].scores(board, color, net_last);
            // `prune_count` counts soft pruning's x as it counts tree pruning's; no minimum is
            // kept unpenalised (keep_min 0), so `legal` penalises min(x, m) as it always did.
            // Counting x of the legal moves penalises every move once fewer than x are
            // legal, and the unpenalised pass then looks best (the soft-pruning arm counted that way won 0 of 100).
            let drop = drop_count(m, sp.x, s.prune_count, 0);
            soft = worst_mask(&kept[..m], scores, drop);
            soft_visits = sp.visits;
        }
        let heuristics = if s.priors {
            let last = self.last_points(tree);
            Some(super::priors::heuristic_priors(
                board,
                color,
                last,
                &cand[..n],
                s.heavy.ladders,
            ))
        } else {
            None
        };
        let policy = s.policy.map(|pp| {
            (
                pp.weight,
                *self.slots[pp.slot].scores(board, color, net_last),
            )
        });
        // Widening ranks the candidates best first, so the open ones are a prefix of the
        // block; the other settings' per-candidate values travel with them (`order`).
        let mut order: [u8; NN] = std::array::from_fn(|k| k as u8);
        if let Some(w) = s.widen {
            let scores = *self.slots[w.slot].scores(board, color, net_last);
            order[..n].sort_by(|&a, &b| {
                cmp_best_first(
                    &scores,
                    cand[a as usize] as usize,
                    cand[b as usize] as usize,
                )
            });
        }
        let count = n - (dropped & crate::rules::BOARD).count_ones() as usize + 1;
        let Some(first) = tree.claim(n + 1, count) else {
            target.first.store(0, Release);
            return Expansion::Unavailable;
        };
        // Root noise: one Dirichlet share per board move created here, in creation order.
        let mut noise = [0f64; NN];
        let root_noise = s.root_noise.filter(|_| node == 0 && policy.is_some());
        if let Some(rn) = root_noise {
            self.rng
                .dirichlet(f64::from(rn.alpha), &mut noise[..count - 1]);
        }
        // PUCT's priors: the network's probabilities renormalised over the board moves kept
        // (pruning and own-eye candidates take their share away), the pass's fixed share
        // apart; uniform without a network.
        let puct_share = s.puct.map(|pc| {
            let kept = |c: &&u8| dropped & bit(**c as usize) == 0;
            let total: f32 = match &policy {
                Some((_, bad)) => cand[..n]
                    .iter()
                    .filter(kept)
                    .map(|&c| (1.0 - bad[c as usize]).clamp(0.0, 1.0))
                    .sum(),
                None => 0.0,
            };
            (pc.pass_prior, total)
        });
        let mut k_out = first;
        for &k in &order[..n] {
            let k = k as usize;
            let c = cand[k];
            let b = bit(c as usize);
            if dropped & b == 0 {
                let soft_prior = if soft & b != 0 { soft_visits } else { 0 };
                if let Some((pass_prior, total)) = puct_share {
                    let raw = match &policy {
                        Some((_, bad)) if total > 1e-6 => {
                            (1.0 - bad[c as usize]).clamp(0.0, 1.0) / total
                        }
                        _ => 1.0 / (count - 1) as f32,
                    };
                    let mut p = raw;
                    if let Some(rn) = root_noise {
                        p = (1.0 - rn.eps) * p + rn.eps * noise[k_out - first] as f32;
                    }
                    tree.nodes[k_out].init(c as usize, soft_prior, 0);
                    tree.nodes[k_out].set_policy((1.0 - pass_prior) * p);
                    k_out += 1;
                    continue;
                }
                let (mut pv, mut pw) = heuristics.as_ref().map_or((0, 0.0), |h| h[k]);
                if let Some((weight, bad)) = &policy {
                    let mut p = (1.0 - bad[c as usize]).clamp(0.0, 1.0);
                    if let Some(rn) = root_noise {
                        p = (1.0 - rn.eps) * p + rn.eps * noise[k_out - first] as f32;
                    }
                    let v = (weight * p.sqrt()).round();
                    pv += v as u16;
                    pw += v;
                }
                // Prior wins are whole numbers, so win units hold them exactly.
                let units = (pw * UNITS as f32).round() as u32;
                tree.nodes[k_out].init(c as usize, soft_prior + pv, units);
                k_out += 1;
            }
        }
        tree.nodes[k_out].init(PASS_INDEX, 0, 0);
        if let Some((pass_prior, _)) = puct_share {
            // Alone, the pass takes all the prior.
            tree.nodes[k_out].set_policy(if count == 1 { 1.0 } else { pass_prior });
        }
        debug_assert_eq!(k_out + 1 - first, count);
        if let Some(p) = s
            .value
            .and_then(|vm| self.slots[vm.slot].value(board, color, net_last))
        {
            target.set_black_value(if color == Color::Black { p } else { 1.0 - p });
        }
        target.n_children.store(count as u8, Relaxed);
        // Publishes the children: a thread that reads `first` with acquire sees them whole.
        target.first.store(first as u32, Release);
        Expansion::Made
    }

    /// Plays the leaf position out with the configured policy; black's margin.
    fn playout(&mut self, tree: &Tree, board: &mut Board, color: Color) -> f32 {
        let settings = &tree.settings;
        let cfg = settings.playout;
        let last = self.last_points(tree);
        let net_last = self.pruner_last(tree);
        let trace = (settings.rave > 0.0).then_some(&mut self.trace);
        let rng = &mut self.rng;
        let result = match settings.playout_prune {
            None => match settings.playout_kind {
                PlayoutKind::Uniform if trace.is_none() => {
                    playout::run(board, color, &mut Uniform, rng, &cfg, |_, _| {})
                }
                PlayoutKind::Uniform => run_traced(board, color, &mut Uniform, rng, &cfg, trace),
                PlayoutKind::Heavy => {
                    let mut policy = Heavy::new(settings.heavy, last);
                    run_traced(board, color, &mut policy, rng, &cfg, trace)
                }
                PlayoutKind::Territory => {
                    let mut policy = TerritoryPlayout::new();
                    run_traced(board, color, &mut policy, rng, &cfg, trace)
                }
            },
            Some(pp) => match pp.eval {
                PlayoutEval::Leaf => {
                    let slot = &mut self.slots[pp.slot];
                    let mut allowed = [0; 2];
                    for c in [Color::Black, Color::White] {
                        // The side not to move rates the leaf as if the mover had passed:
                        // the history a game reaching it with that side to move would have.
                        let c_last = if c == color {
                            net_last
                        } else if settings.history {
                            [PASS_INDEX as u8, net_last[0]]
                        } else {
                            NO_LAST_MOVES
                        };
                        let scores = slot.scores(board, c, c_last);
                        allowed[c.idx()] =
                            crate::rules::BOARD & !worst_share_mask(board, scores, pp.share);
                    }
                    let mut policy = LeafMasked { allowed };
                    run_traced(board, color, &mut policy, rng, &cfg, trace)
                }
                PlayoutEval::Move => {
                    let mut policy = EveryMove::new(&mut self.slots[pp.slot], pp.share, net_last);
                    run_traced(board, color, &mut policy, rng, &cfg, trace)
                }
            },
        };
        result.margin
    }
}

/// The children selection may take, with their block offsets: all of them, or with
/// progressive widening the open prefix of the ranked block and the pass (always last).
#[inline]
fn open_children<'a>(
    settings: &Settings,
    kids: &'a [Node],
    parent_visits: u32,
) -> impl Iterator<Item = (usize, &'a Node)> {
    let last = kids.len() - 1;
    let open = settings
        .widen
        .map_or(last, |w| w.open(parent_visits).min(last));
    kids[..open]
        .iter()
        .enumerate()
        .chain(std::iter::once((last, &kids[last])))
}

/// Runs a playout, recording its board moves into `trace` when given (RAVE).
fn run_traced<P: PlayoutPolicy>(
    board: &mut Board,
    color: Color,
    policy: &mut P,
    rng: &mut FastRng,
    cfg: &PlayoutConfig,
    trace: Option<&mut Vec<(u8, u8)>>,
) -> playout::PlayoutResult {
    match trace {
        Some(t) => playout::run(board, color, policy, rng, cfg, |c, m| {
            if let Move::Play(p) = m {
                t.push((c.idx() as u8, p.index() as u8));
            }
        }),
        None => playout::run(board, color, policy, rng, cfg, |_, _| {}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prune::rules::RulePruner;
    use std::sync::Arc;

    fn worker(prune: Option<TreePruning>, soft: Option<SoftPruning>) -> (Tree, Worker) {
        let settings = Settings {
            expand: 2,
            c: 0.4,
            max_nodes: 1 << 20,
            playout: PlayoutConfig::default(),
            prune,
            soft,
            playout_prune: None,
            playout_kind: PlayoutKind::Uniform,
            prune_count: PruneCount::Legal,
            keep_min: 1,
            rave: 0.0,
            priors: false,
            heavy: HeavyConfig::default(),
            policy: None,
            puct: None,
            value: None,
            root_noise: None,
            widen: None,
            history: true,
        };
        let slots = vec![PrunerSlot::new(Arc::new(RulePruner::default()), 64)];
        (
            Tree::new(settings, false),
            Worker::new(slots, FastRng::new(1)),
        )
    }

    /// Children counts of every expanded node, by depth.
    fn children_by_depth(t: &Tree) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); 8];
        let mut stack = vec![(0usize, 0usize)];
        while let Some((i, d)) = stack.pop() {
            if let Some(kids) = t.nodes[i].children().filter(|_| d < 8) {
                out[d].push(kids.len());
                stack.extend(kids.map(|k| (k, d + 1)));
            }
        }
        out
    }

    #[test]
    fn pruning_applies_from_its_depth_down_and_keeps_pass() {
        let (t, mut w) = worker(
            Some(TreePruning {
                slot: 0,
                x: 30,
                depth: 1,
            }),
            None,
        );
        w.search(&t, &SimBudget::new(3000), None);
        let by_depth = children_by_depth(&t);
        assert_eq!(by_depth[0], vec![82], "root (depth 0) is not pruned");
        assert!(!by_depth[1].is_empty() && !by_depth[2].is_empty());
        // A depth-1 node has 80 empty points (81 after the root's pass): 30 are dropped and
        // pass is added.
        let mut d1 = by_depth[1].clone();
        d1.sort();
        assert_eq!(
            d1.pop(),
            Some(81 - 30 + 1),
            "the pass child: {:?}",
            by_depth[1]
        );
        assert!(d1.iter().all(|&n| n == 80 - 30 + 1), "{:?}", by_depth[1]);
        for (d, counts) in by_depth.iter().enumerate().skip(1) {
            assert!(
                counts.iter().all(|&n| n <= 81 - 30 + 1),
                "depth {d}: {counts:?}"
            );
        }
        // Pass is the last child of every expanded node.
        for n in &t.nodes[..t.node_count()] {
            if let Some(kids) = n.children() {
                assert_eq!(t.nodes[kids.end - 1].mv(), PASS_INDEX);
            }
        }
    }

    /// A "network" for the search's tests: its badness of every point (`policy`) and black's
    /// win probability in a board (`black`), given for the side to move as networks do.
    struct TestNet {
        policy: fn(&mut [f32; NN]),
        black: fn(&Board) -> f32,
    }
    impl crate::prune::Pruner for TestNet {
        fn name(&self) -> String {
            "test-net".into()
        }
        fn reads_history(&self) -> bool {
            false
        }
        fn badness(&self, _ctx: &crate::prune::PruneContext<'_>, out: &mut [f32; NN]) {
            (self.policy)(out);
        }
        fn badness_value(
            &self,
            ctx: &crate::prune::PruneContext<'_>,
            out: &mut [f32; NN],
        ) -> Option<f32> {
            (self.policy)(out);
            let p_black = (self.black)(ctx.board);
            Some(if ctx.to_move == Color::Black {
                p_black
            } else {
                1.0 - p_black
            })
        }
        fn has_value(&self) -> bool {
            true
        }
    }

    /// Every move alike.
    fn flat_policy(out: &mut [f32; NN]) {
        out.fill(0.5);
    }

    /// Black wins exactly when black holds E5.
    const E5_VALUE: TestNet = TestNet {
        policy: flat_policy,
        black: |board| {
            if board.color_at(Point::new(40)) == Some(Color::Black) {
                0.95
            } else {
                0.05
            }
        },
    };

    /// Black loses: a win probability of 0.1 in every position.
    const BLACK_LOSES_VALUE: TestNet = TestNet {
        policy: flat_policy,
        black: |_| 0.1,
    };

    /// A search whose only slot is [`E5_VALUE`], mixing its value at `lambda`.
    fn valued(lambda: f32) -> (Tree, Worker) {
        let (mut t, _) = worker(None, None);
        t.settings.value = Some(ValueMix { slot: 0, lambda });
        t.settings.expand = 0;
        let slots = vec![PrunerSlot::new(Arc::new(E5_VALUE), 1 << 12).with_value()];
        (t, Worker::new(slots, FastRng::new(3)))
    }

    /// The root's child with the most visits (the move the engine would play).
    fn most_visited(t: &Tree) -> &Node {
        t.root_children()
            .iter()
            .max_by_key(|c| c.real_visits())
            .expect("an expanded root")
    }

    #[test]
    fn a_value_only_search_follows_the_value_network() {
        let (t, mut w) = valued(1.0);
        w.search(&t, &SimBudget::new(3000), None);
        let best = most_visited(&t);
        assert_eq!(best.mv(), 40, "the value network's move");
        assert!(best.real_wins() / best.real_visits() as f32 > 0.8);
        // The root was rated (black to move, E5 empty: black's chance 0.05).
        let v = t.root().black_value().unwrap();
        assert!((v - 0.05).abs() < 1e-3, "{v}");
    }

    #[test]
    fn mixed_results_average_the_playouts_and_the_value() {
        // Without the value the empty board is near even for black's moves; with half the
        // result from a value that calls E5 won, E5's win rate rises by about half the gap.
        let (t, mut w) = valued(0.5);
        w.search(&t, &SimBudget::new(4000), None);
        let e5 = t.root_children().iter().find(|c| c.mv() == 40).unwrap();
        let other: (u32, f32) = t
            .root_children()
            .iter()
            .filter(|c| c.mv() != 40 && c.mv() != PASS_INDEX)
            .fold((0, 0.0), |(v, w), c| {
                (v + c.real_visits(), w + c.real_wins())
            });
        let rate_e5 = e5.real_wins() / e5.real_visits() as f32;
        let rate_other = other.1 / other.0 as f32;
        assert!(rate_e5 - rate_other > 0.3, "{rate_e5} vs {rate_other}");
        assert!(rate_e5 < 0.95, "playouts keep their half: {rate_e5}");
    }

    /// `lambda` is the value's weight: a result is `(1 - lambda) * playout + lambda * value`.
    /// With a komi of -100 every playout is a black win (1) while the value gives black 0.1,
    /// so black's mean result is `(1 - lambda) + 0.1 * lambda`: 0.775 at `lambda = 0.25` and
    /// 0.325 at `lambda = 0.75` (0.19 at 0.9). Weights the other way round would give the
    /// means swapped (0.325, 0.775, 0.91), 0.45 or more away. Simulations ended by two passes
    /// in the tree count the area alone, a black win, and exploration keeps returning to
    /// the pass children, so the means sit up to a few hundredths above the formula.
    #[test]
    fn lambda_weighs_the_value_and_one_minus_lambda_the_playout() {
        for (lambda, want) in [(0.25f32, 0.775f32), (0.75, 0.325), (0.9, 0.19)] {
            let (mut t, _) = worker(None, None);
            t.settings.value = Some(ValueMix { slot: 0, lambda });
            t.settings.expand = 0;
            t.settings.playout.komi = -100.0;
            let slots = vec![PrunerSlot::new(Arc::new(BLACK_LOSES_VALUE), 1 << 12).with_value()];
            let mut w = Worker::new(slots, FastRng::new(5));
            w.search(&t, &SimBudget::new(3000), None);
            // The root's children hold black's results (black is to move at the root).
            let (visits, wins) = t.root_children().iter().fold((0u32, 0f32), |(v, w), c| {
                (v + c.real_visits(), w + c.real_wins())
            });
            assert_eq!(visits, 3000);
            let mean = wins / visits as f32;
            assert!(
                mean > want - 0.02 && mean < want + 0.1,
                "lambda {lambda}: black's mean result {mean}, want {want}"
            );
        }
    }

    /// A "network" whose policy gives E5 (point 40) the probability `E5_SHARE` and the
    /// other points equal shares of the rest, with black's win probability 0.5 everywhere.
    const E5_SHARE: f32 = 0.9;
    const FAVOURS_E5: TestNet = TestNet {
        policy: |out| {
            out.fill(1.0 - (1.0 - E5_SHARE) / 80.0);
            out[40] = 1.0 - E5_SHARE;
        },
        black: |_| 0.5,
    };

    /// KataGo-like PUCT settings with no growth of c.
    const PUCT: Puct = Puct {
        c: 0.5,
        c_log: 0.0,
        c_base: 500.0,
        fpu: 0.2,
        fpu_root: 0.1,
        pass_prior: 0.01,
    };

    /// A PUCT search whose only slot, `pruner`, is both its policy and its value.
    fn puct_search(pruner: Arc<dyn crate::prune::Pruner>, puct: Puct) -> (Tree, Worker) {
        let (mut t, _) = worker(None, None);
        t.settings.policy = Some(PolicyPrior {
            slot: 0,
            weight: 100.0,
        });
        t.settings.value = Some(ValueMix {
            slot: 0,
            lambda: 1.0,
        });
        t.settings.puct = Some(puct);
        let slots = vec![PrunerSlot::new(pruner, 1 << 12).with_value()];
        (t, Worker::new(slots, FastRng::new(9)))
    }

    /// Expanded nodes of the tree.
    fn expanded(t: &Tree) -> usize {
        t.nodes[..t.node_count()]
            .iter()
            .filter(|n| n.is_expanded())
            .count()
    }

    #[test]
    fn puct_follows_the_value_and_evaluates_each_leaf_once() {
        let (t, mut w) = puct_search(Arc::new(E5_VALUE), PUCT);
        let sims = 2000;
        w.search(&t, &SimBudget::new(sims), None);
        let best = most_visited(&t);
        assert_eq!(best.mv(), 40, "the value network's move");
        assert!(best.real_wins() / best.real_visits() as f32 > 0.9);
        // Every simulation expands the leaf it reaches and ends there: one evaluation (or a
        // transposition's cached one) and one expanded node each, but for simulations ended
        // by two passes in the tree.
        let nodes = expanded(&t);
        assert_eq!((w.slots[0].evals + w.slots[0].hits) as usize, nodes);
        assert!(
            nodes as u64 <= sims && nodes as u64 > sims * 9 / 10,
            "{nodes}"
        );
        // The priors are the policy's probabilities: uniform here, the pass apart.
        let board: f32 = t
            .root_children()
            .iter()
            .filter(|c| c.mv() != PASS_INDEX)
            .map(Node::policy)
            .sum();
        let pass = t.root_children().last().unwrap();
        assert_eq!(pass.mv(), PASS_INDEX);
        assert!((pass.policy() - 0.01).abs() < 1e-4, "{}", pass.policy());
        assert!((board - 0.99).abs() < 0.01, "{board}");
    }

    /// With the same value everywhere, PUCT's visits follow the priors: the move with 0.9 of
    /// the probability takes most of them.
    #[test]
    fn puct_visits_follow_the_priors_when_values_agree() {
        let (t, mut w) = puct_search(Arc::new(FAVOURS_E5), PUCT);
        w.search(&t, &SimBudget::new(1000), None);
        let root: u32 = t.root_children().iter().map(Node::real_visits).sum();
        let e5 = t.root_children().iter().find(|c| c.mv() == 40).unwrap();
        assert!(
            (e5.policy() - 0.99 * E5_SHARE).abs() < 0.01,
            "{}",
            e5.policy()
        );
        assert!(
            e5.real_visits() * 2 > root,
            "{} of {root}",
            e5.real_visits()
        );
    }

    /// First-play urgency: with a large reduction, an unvisited move looks worse than the
    /// tried ones, so a search over equal values tries fewer root moves than with none.
    #[test]
    fn first_play_urgency_reduction_narrows_the_search() {
        let tried = |fpu: f32| {
            let (t, mut w) = puct_search(
                Arc::new(BLACK_LOSES_VALUE),
                Puct {
                    fpu,
                    fpu_root: fpu,
                    ..PUCT
                },
            );
            w.search(&t, &SimBudget::new(400), None);
            t.root_children()
                .iter()
                .filter(|c| c.real_visits() > 0)
                .count()
        };
        let (wide, narrow) = (tried(0.0), tried(1.0));
        assert!(
            narrow * 2 < wide,
            "fpu 1: {narrow} moves tried, fpu 0: {wide}"
        );
    }

    /// Values are backed up for the side that moved: with black's win probability 0.1 in
    /// every position, black's root moves average about 0.1 and white's about 0.9.
    #[test]
    fn puct_values_are_the_movers() {
        for (to_move, want) in [(Color::Black, 0.1f32), (Color::White, 0.9)] {
            let (mut t, mut w) = puct_search(Arc::new(BLACK_LOSES_VALUE), PUCT);
            t.reset(Board::new(), to_move, 0);
            w.search(&t, &SimBudget::new(500), None);
            let (visits, wins) = t
                .root_children()
                .iter()
                .filter(|c| c.mv() != PASS_INDEX)
                .fold((0u32, 0f32), |(v, w), c| {
                    (v + c.real_visits(), w + c.real_wins())
                });
            let mean = wins / visits as f32;
            assert!(
                (mean - want).abs() < 0.05,
                "{to_move:?}: {mean}, want {want}"
            );
        }
    }

    #[test]
    fn cpuct_grows_with_visits_as_its_log_term_says() {
        let grows = Puct {
            c_log: 0.45,
            ..PUCT
        };
        assert_eq!(PUCT.c_at(100_000), 0.5);
        assert!((grows.c_at(0) - 0.5).abs() < 1e-6);
        let want = 0.5 + 0.45 * (1500.0f32 / 500.0).ln();
        assert!((grows.c_at(1000) - want).abs() < 1e-5);
    }

    #[test]
    fn root_noise_changes_the_root_priors_by_seed() {
        let root_priors = |noise: Option<RootNoise>, seed: u64| {
            let (mut t, _) = worker(None, None);
            t.settings.policy = Some(PolicyPrior {
                slot: 0,
                weight: 100.0,
            });
            t.settings.root_noise = noise;
            let slots = vec![PrunerSlot::new(Arc::new(RulePruner::default()), 64)];
            let mut w = Worker::new(slots, FastRng::new(seed));
            w.search(&t, &SimBudget::new(50), None);
            t.root_children()
                .iter()
                .map(|c| c.prior())
                .collect::<Vec<_>>()
        };
        let noise = Some(RootNoise {
            eps: 0.5,
            alpha: 0.15,
        });
        let plain = root_priors(None, 1);
        assert_eq!(
            plain,
            root_priors(None, 2),
            "no noise: the seed changes nothing"
        );
        let a = root_priors(noise, 1);
        assert_eq!(a, root_priors(noise, 1), "same seed, same noise");
        assert_ne!(a, plain);
        assert_ne!(a, root_priors(noise, 2));
    }

    #[test]
    fn stochastic_rounding_of_win_units_is_unbiased() {
        let (_, mut w) = worker(None, None);
        for p in [0.0f32, 0.03, 0.5, 0.61, 1.0] {
            let n = 20_000;
            let sum: u64 = (0..n).map(|_| u64::from(w.round_units(p))).sum();
            let mean = sum as f64 / n as f64 / f64::from(UNITS);
            assert!((mean - f64::from(p)).abs() < 0.002, "{p}: {mean}");
        }
    }

    #[test]
    fn backup_counts_wins_for_the_player_who_moved() {
        let (t, mut w) = worker(None, None);
        w.search(&t, &SimBudget::new(2000), None);
        let root = t.root();
        assert_eq!(root.visits(), 2000);
        let children = t.root_children();
        let visits: u32 = children.iter().map(|c| c.visits()).sum();
        assert_eq!(visits, 2000);
        // The root's wins are white's (the side that moved into it); each child's are
        // black's: together they account for every simulation.
        let black_wins: f32 = children.iter().map(|c| c.wins()).sum();
        assert!((black_wins + root.wins() - 2000.0).abs() < 1e-3);
        // Each simulation through an expanded child either stopped there (black's win or
        // not) or went on to one grandchild, where white's result is the complement of
        // black's at the child: so child wins + grandchild wins lie in [through, visits].
        let mut checked = 0;
        for c in children {
            let Some(kids) = c.children() else { continue };
            let g = &t.nodes[kids];
            let through: u32 = g.iter().map(|x| x.visits()).sum();
            let g_wins: f32 = g.iter().map(|x| x.wins()).sum();
            let total = c.wins() + g_wins;
            assert!(
                total >= through as f32 - 1e-3 && total <= c.visits() as f32 + 1e-3,
                "{total} not in [{through}, {}]",
                c.visits()
            );
            checked += 1;
        }
        assert!(checked > 10);
    }

    /// Grows one tree with `threads` workers sharing a budget of `sims`.
    fn shared_search(threads: usize, sims: u64, prune: Option<TreePruning>) -> Tree {
        let (t, _) = worker(prune, None);
        let mut t = t;
        t.virtual_loss = threads > 1;
        let mut workers: Vec<Worker> = (0..threads)
            .map(|k| {
                let slots = vec![PrunerSlot::new(Arc::new(RulePruner::default()), 64)];
                Worker::new(slots, FastRng::for_stream(7, k as u64))
            })
            .collect();
        let budget = SimBudget::new(sims);
        let done: u64 = std::thread::scope(|s| {
            let handles: Vec<_> = workers
                .iter_mut()
                .map(|w| {
                    let (t, b) = (&t, &budget);
                    s.spawn(move || w.search(t, b, None))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(done, sims, "the threads share one budget");
        t
    }

    /// Every node's move, visits and wins, in arena order.
    fn fingerprint(t: &Tree) -> Vec<(usize, u32, u32)> {
        t.nodes[..t.node_count()]
            .iter()
            .map(|n| (n.mv(), n.visits(), n.wins().to_bits()))
            .collect()
    }

    /// Virtual loss changes even a one-thread search: a node's count includes the visit
    /// in flight while its child is chosen, so UCB's parent count is one higher. The engine
    /// therefore runs one thread without it in both parallel modes, and
    /// `one_thread_is_the_same_search_in_both_parallel_modes` (tests/search_engine.rs),
    /// which would fail if a one-thread `parallel=tree` engine turned it on, has teeth.
    #[test]
    fn virtual_loss_changes_a_one_thread_search() {
        let grow = |virtual_loss: bool| {
            let (mut t, mut w) = worker(None, None);
            t.virtual_loss = virtual_loss;
            w.search(&t, &SimBudget::new(3000), None);
            assert_eq!(t.root().visits(), 3000);
            fingerprint(&t)
        };
        assert_ne!(grow(false), grow(true));
    }

    #[test]
    fn shared_tree_counts_every_simulation_once() {
        let t = shared_search(4, 4000, None);
        // Every virtual visit was followed by its result: the root and its children account
        // for each simulation exactly once, as in the sequential search.
        assert_eq!(t.root().visits(), 4000);
        let children = t.root_children();
        assert_eq!(children.iter().map(|c| c.visits()).sum::<u32>(), 4000);
        let black_wins: f32 = children.iter().map(|c| c.wins()).sum();
        assert!((black_wins + t.root().wins() - 4000.0).abs() < 1e-3);
        // Every expanded node's visits cover its children's (a node is visited before any
        // child, and the visit that expanded it stopped there).
        for n in &t.nodes[..t.node_count()] {
            assert_ne!(
                n.first.load(Relaxed),
                EXPANDING,
                "an expansion left unfinished"
            );
            if let Some(kids) = n.children() {
                let through: u32 = t.nodes[kids.clone()].iter().map(|c| c.visits()).sum();
                assert!(through <= n.visits(), "{through} > {}", n.visits());
                assert_eq!(t.nodes[kids.end - 1].mv(), PASS_INDEX);
            }
        }
    }

    #[test]
    fn shared_tree_prunes_like_the_sequential_one() {
        let prune = Some(TreePruning {
            slot: 0,
            x: 30,
            depth: 1,
        });
        let t = shared_search(3, 3000, prune);
        let by_depth = children_by_depth(&t);
        assert_eq!(by_depth[0], vec![82]);
        for counts in by_depth.iter().skip(1) {
            assert!(counts.iter().all(|&n| n <= 81 - 30 + 1), "{counts:?}");
        }
    }

    #[test]
    fn one_worker_on_a_shared_tree_is_the_sequential_search() {
        let a = shared_search(1, 1500, None);
        let (b, mut w) = worker(None, None);
        w.rng = FastRng::for_stream(7, 0);
        w.search(&b, &SimBudget::new(1500), None);
        let stats = |t: &Tree| -> Vec<(usize, u32, f32)> {
            t.root_children()
                .iter()
                .map(|c| (c.mv(), c.visits(), c.wins()))
                .collect()
        };
        assert_eq!(stats(&a), stats(&b));
        assert_eq!(a.node_count(), b.node_count());
    }

    #[test]
    fn a_full_arena_stops_expanding_without_losing_simulations() {
        let (mut t, mut w) = worker(None, None);
        t.settings.max_nodes = 1_000;
        t.nodes = zeroed_nodes(1_000);
        t.reset(Board::new(), Color::Black, 0);
        w.search(&t, &SimBudget::new(5000), None);
        assert!(t.node_count() <= 1_000);
        assert_eq!(t.root().visits(), 5000);
    }

    #[test]
    fn widening_opens_the_ranked_candidates_as_visits_grow() {
        let w = Widening {
            slot: 0,
            k0: 3,
            base: 10.0,
            log_mult: 2f32.ln(),
        };
        let opens: Vec<usize> = [0, 9, 10, 19, 20, 40, 80, 1000]
            .iter()
            .map(|&n| w.open(n))
            .collect();
        assert_eq!(opens, [3, 3, 4, 4, 5, 6, 7, 10]);
        let (mut t, mut worker) = worker(None, None);
        t.settings.widen = Some(w);
        worker.search(&t, &SimBudget::new(400), None);
        // The root's block is ranked best first by the pruner (pass last), and selection
        // only visited the open prefix and the pass.
        let kids = t.root_children();
        let scores = *worker.slots[0].scores(&Board::new(), Color::Black, NO_LAST_MOVES);
        let ranked: Vec<f32> = kids[..kids.len() - 1]
            .iter()
            .map(|c| scores[c.mv()])
            .collect();
        assert!(ranked.windows(2).all(|p| p[0] <= p[1]), "{ranked:?}");
        let open = w.open(t.root().visits());
        assert!(open < 20, "{open}");
        for (k, c) in kids.iter().enumerate() {
            if k >= open && k + 1 < kids.len() {
                assert_eq!(c.visits(), 0, "closed candidate {k} was visited");
            }
        }
        assert!(kids[..open].iter().all(|c| c.visits() > 0));
    }
}
