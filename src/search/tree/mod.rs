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
//!
//! Files: this one the settings, the [`Tree`] and the [`Worker`]'s simulation loop;
//! `node.rs` the packed node and its arena; `select.rs` the descent (UCB1, RAVE, PUCT,
//! progressive widening); `expand.rs` the expansion with pruning and priors; `backup.rs`
//! the playout and the backup of its result (AMAF included); `tests.rs` the tests.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16, AtomicU32, AtomicU64, AtomicUsize};

use crate::board_analysis::TerritoryPlayout;
use crate::playout::heavy::{Heavy, HeavyConfig};
use crate::playout::{self, PlayoutConfig, PlayoutPolicy, Uniform};
use crate::prune::{LastMoves, NO_LAST_MOVES, cmp_best_first, last_point};
use crate::rules::{Bits, Board, Color, Move, NN, PASS_INDEX, Point, bit, score};
use crate::util::rng::FastRng;

pub use super::engine::TreeAllocError;
use super::outcomes::Outcomes;
use super::pruning::{
    EveryMove, LeafMasked, PlayoutEval, PruneCount, PrunerSlot, drop_count, given_last, worst_mask,
    worst_share_mask,
};

mod backup;
mod expand;
mod node;
mod select;
pub use node::*;

/// Which policy plays the playouts out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayoutKind {
    /// Uniformly random legal moves that do not fill the mover's own eye.
    #[default]
    Uniform,
    /// A random best territory-gain move ([`crate::board_analysis::TerritoryPlayout`]).
    Territory,
    /// MoGo-style heavy playouts: captures, atari escapes and 3x3 shapes around the last
    /// moves first, self-ataris mostly refused ([`crate::playout::heavy`]).
    Heavy,
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

    /// The root's simulations and the wins of its side to move over them (draws half).
    /// A simulation that ended at the root itself (under PUCT the first, which evaluated
    /// the root) counts at the value network's exact value where the results are the
    /// network's alone (`value_mix=1`): its stored result was rounded to a whole win unit
    /// at random, so at one visit the root's win rate would be a multiple of 1/16, not the
    /// network's value that an analysis at `maxVisits 1` reports.
    pub fn root_result(&self) -> (u32, f64) {
        let root = &self.nodes[0];
        let visits = root.real_visits();
        // The root's wins are those of the player who moved into it: the opponent's.
        let wins = f64::from(visits) - f64::from(root.real_wins());
        let kids = self.root_children();
        let through: u32 = kids.iter().map(Node::real_visits).sum();
        let own = visits.saturating_sub(through);
        let value_only = self.settings.value.is_some_and(|m| m.lambda >= 1.0);
        match root.black_value() {
            Some(black) if own > 0 && value_only => {
                let v = if self.root_to_move == Color::Black {
                    black
                } else {
                    1.0 - black
                };
                let through_wins: f64 = kids.iter().map(|k| f64::from(k.real_wins())).sum();
                (visits, through_wins + f64::from(own) * f64::from(v))
            }
            _ => (visits, wins),
        }
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
    /// Set from outside to end every search at its next clock check (the engine's
    /// [`super::Engine::set_stop`]).
    halt: Option<Arc<AtomicBool>>,
}

impl Worker {
    pub fn new(slots: Vec<PrunerSlot>, rng: FastRng) -> Worker {
        Worker {
            rng,
            path: Vec::with_capacity(256),
            trace: Vec::with_capacity(512),
            slots,
            halt: None,
        }
    }

    /// Shares `halt` with the worker: once it is set, [`Worker::search`] returns at its next
    /// clock check, whatever budget and time are left.
    pub fn set_halt(&mut self, halt: Arc<AtomicBool>) {
        self.halt = Some(halt);
    }

    /// Whether the search was told to end from outside.
    fn halted(&self) -> bool {
        self.halt.as_ref().is_some_and(|h| h.load(Relaxed))
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

    /// Runs simulations on `tree` while `budget` lasts, `deadline` has not passed and the
    /// halt flag is not set; returns how many this worker ran. The clock and the flag are
    /// read every 64 simulations, or every 4 under PUCT, whose simulations each cost a
    /// network evaluation (tens of microseconds and more), so the search stops within a few
    /// of them of the deadline or the halt.
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
                && (self.halted() || deadline.is_some_and(|d| std::time::Instant::now() >= d))
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
}

#[cfg(test)]
mod tests;
