//! The UCT tree and one search thread's simulation loop.
//!
//! Nodes live in one flat `Vec` (28 bytes each); a node's children are a contiguous block
//! (`first .. first + n_children`), so expansion is one `extend` and selection walks a slice.
//! Nothing is allocated per simulation: the board is copied (a `Copy` struct), the path
//! reuses one `Vec`, pruner scores come from a fixed-size cache.
//!
//! A simulation: descend from the root by UCB1 (unvisited children first, in move order);
//! a leaf that has been visited `expand` times is expanded (candidates = legal moves that do
//! not fill the mover's own eye, minus tree-pruned ones, plus pass, which is never pruned)
//! and the descent continues; otherwise a playout runs from the leaf and its result is
//! backed up. Two passes in a row end the game inside the tree and are scored directly.

use crate::analysis::TerritoryPlayout;
use crate::playout::heavy::{Heavy, HeavyConfig};
use crate::playout::{self, PlayoutConfig, PlayoutPolicy, Uniform};
use crate::rules::{BitIter, Bits, Board, Color, Move, NN, PASS_INDEX, Point, bit, score};
use crate::search::uct::PlayoutKind;
use crate::util::rng::FastRng;

use super::pruning::{
    EveryMove, LeafMasked, PlayoutEval, PruneCount, PrunerSlot, drop_count, worst_mask,
    worst_share_mask,
};

/// One tree node: the move that led here and its statistics.
#[derive(Debug, Clone, Copy, Default)]
pub struct Node {
    /// Index of the first child; 0 = not expanded (the root sits at 0, so no child can).
    pub first: u32,
    /// Number of children (at most 82: every point and pass).
    pub n_children: u8,
    /// The move leading here: flat index, 81 = pass.
    pub mv: u8,
    /// Prior visits given at creation (soft pruning, heuristic priors; counted in `visits`).
    pub prior: u16,
    /// Visits, prior included.
    pub visits: u32,
    /// Wins of the player who made `mv` (draws count one half), prior wins included.
    pub wins: f32,
    /// Prior wins given at creation (counted in `wins`).
    pub prior_wins: f32,
    /// AMAF (RAVE) visits: simulations through the parent in which the mover played `mv`
    /// later on, first at that point.
    pub amaf_visits: u32,
    /// AMAF wins of the player who made `mv`.
    pub amaf_wins: f32,
}

impl Node {
    fn new(mv: usize, prior: u16) -> Node {
        Node::with_prior(mv, prior, 0.0)
    }
    fn with_prior(mv: usize, prior: u16, prior_wins: f32) -> Node {
        Node {
            first: 0,
            n_children: 0,
            mv: mv as u8,
            prior,
            visits: prior as u32,
            wins: prior_wins,
            prior_wins,
            amaf_visits: 0,
            amaf_wins: 0.0,
        }
    }
    /// Visits made by simulations (the prior taken out).
    pub fn real_visits(&self) -> u32 {
        self.visits - self.prior as u32
    }
    /// Wins made by simulations (the prior taken out).
    pub fn real_wins(&self) -> f32 {
        self.wins - self.prior_wins
    }
    fn is_expanded(&self) -> bool {
        self.first != 0
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

/// The numbers one search thread needs (resolved from `UctConfig`).
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
}

/// A network's move probabilities as priors (michi's large-pattern prior): a candidate with
/// probability `p = 1 - badness` starts with `weight * sqrt(p)` visits, all of them wins.
#[derive(Debug, Clone, Copy)]
pub struct PolicyPrior {
    pub slot: usize,
    pub weight: f32,
}

/// One search thread: its own tree, generator and pruner caches.
pub struct Worker {
    pub settings: Settings,
    nodes: Vec<Node>,
    spare: Vec<Node>,
    root_board: Board,
    root_to_move: Color,
    root_passes: u8,
    /// Moves allowed at the root (the game layer's superko check); only applied when the
    /// root is expanded.
    root_allowed: Bits,
    /// The last two moves before the root (most recent first; `PASS_INDEX` = pass or none),
    /// for heavy playouts and priors.
    root_last: [u8; 2],
    rng: FastRng,
    path: Vec<u32>,
    /// The board moves of the current simulation, as (colour index, point), for RAVE.
    trace: Vec<(u8, u8)>,
    /// Pruners with their caches; the settings refer to them by index.
    pub slots: Vec<PrunerSlot>,
}

impl Worker {
    pub fn new(settings: Settings, slots: Vec<PrunerSlot>, rng: FastRng) -> Worker {
        let mut w = Worker {
            settings,
            nodes: Vec::with_capacity(settings.max_nodes.min(1 << 16)),
            spare: Vec::new(),
            root_board: Board::new(),
            root_to_move: Color::Black,
            root_passes: 0,
            root_allowed: crate::rules::BOARD,
            root_last: [PASS_INDEX as u8; 2],
            rng,
            path: Vec::with_capacity(256),
            trace: Vec::with_capacity(512),
            slots,
        };
        w.reset(Board::new(), Color::Black, 0);
        w
    }

    /// Throws the tree away and starts from this root.
    pub fn reset(&mut self, board: Board, to_move: Color, passes: u8) {
        self.nodes.clear();
        self.nodes.push(Node::new(PASS_INDEX, 0));
        self.root_board = board;
        self.root_to_move = to_move;
        self.root_passes = passes;
    }

    /// Keeps the tree when its root already is this position, else resets.
    pub fn set_root(&mut self, board: &Board, to_move: Color, passes: u8, allowed: Bits) {
        if self.root_board != *board
            || self.root_to_move != to_move
            || self.root_passes.min(2) != passes.min(2)
            || self
                .root_children()
                .iter()
                .any(|n| (n.mv as usize) < NN && allowed & bit(n.mv as usize) == 0)
        {
            self.reset(*board, to_move, passes);
        }
        self.root_allowed = allowed;
    }

    /// Tells the worker the last two moves before the root (most recent first), which heavy
    /// playouts and priors answer.
    pub fn set_root_last(&mut self, last: [Option<Point>; 2]) {
        self.root_last = last.map(|p| p.map_or(PASS_INDEX as u8, |p| p.index() as u8));
    }

    /// The last two moves before the current leaf (most recent first): the moves of the
    /// path's nodes, then the root's history.
    fn last_moves(&self) -> [Option<Point>; 2] {
        let mut out = [None; 2];
        let from_path = self
            .path
            .iter()
            .skip(1)
            .rev()
            .map(|&i| self.nodes[i as usize].mv);
        for (slot, mv) in out.iter_mut().zip(from_path.chain(self.root_last)) {
            *slot = ((mv as usize) < NN).then(|| Point::new(mv as usize));
        }
        out
    }

    /// Moves the root to the child reached by `mv` (tree reuse), keeping its subtree, or
    /// resets when that child was never expanded.
    pub fn advance(&mut self, color: Color, mv: Move) {
        let mut board = self.root_board;
        let legal = board.play_move(color, mv).is_ok();
        let passes = if mv == Move::Pass {
            self.root_passes.saturating_add(1)
        } else {
            0
        };
        let child = (color == self.root_to_move && legal)
            .then(|| {
                self.root_children()
                    .iter()
                    .position(|n| n.mv as usize == mv.index())
            })
            .flatten()
            .map(|k| self.nodes[0].first as usize + k);
        match child {
            Some(c) if self.nodes[c].is_expanded() => {
                self.compact_from(c);
                self.root_board = board;
                self.root_to_move = color.opponent();
                self.root_passes = passes;
            }
            _ => self.reset(board, color.opponent(), passes),
        }
    }

    /// Copies the subtree under `new_root` to the front of a fresh node array (breadth
    /// first, children blocks stay contiguous) and swaps it in.
    fn compact_from(&mut self, new_root: usize) {
        let mut out = std::mem::take(&mut self.spare);
        out.clear();
        let mut root = self.nodes[new_root];
        root.visits = root.real_visits();
        root.wins = root.real_wins();
        root.prior = 0;
        root.prior_wins = 0.0;
        out.push(root);
        let mut k = 0;
        while k < out.len() {
            let n = out[k];
            if n.is_expanded() {
                let first = out.len();
                let old = n.first as usize;
                out.extend_from_slice(&self.nodes[old..old + n.n_children as usize]);
                out[k].first = first as u32;
            }
            k += 1;
        }
        self.spare = std::mem::replace(&mut self.nodes, out);
    }

    /// The root's children (empty before the first simulation).
    pub fn root_children(&self) -> &[Node] {
        let r = &self.nodes[0];
        &self.nodes[r.first as usize..r.first as usize + r.n_children as usize]
    }

    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Runs `n` simulations, or fewer when `deadline` passes (checked every 64); returns
    /// how many ran.
    pub fn search(&mut self, n: u64, deadline: Option<std::time::Instant>) -> u64 {
        for done in 0..n {
            if done % 64 == 0
                && done > 0
                && deadline.is_some_and(|d| std::time::Instant::now() >= d)
            {
                return done;
            }
            self.simulate();
        }
        n
    }

    /// One simulation: descend, maybe expand, play out, back up.
    fn simulate(&mut self) {
        let mut board = self.root_board;
        let mut color = self.root_to_move;
        let mut passes = self.root_passes;
        let mut node = 0usize;
        let mut depth = 0u32;
        self.path.clear();
        self.path.push(0);
        self.trace.clear();
        let rave = self.settings.rave > 0.0;
        let margin = loop {
            if passes >= 2 {
                break score::area_margin(&board, self.settings.playout.komi);
            }
            let n = self.nodes[node];
            if !n.is_expanded() {
                let due = node == 0 || n.real_visits() >= self.settings.expand;
                if !due || !self.expand(node, &board, color, depth) {
                    break self.playout(&mut board, color);
                }
            }
            node = self.select(node);
            let mv = self.nodes[node].mv as usize;
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
        // Back up: the node at depth k was reached by a move of the root's side when k is odd.
        let black_result = if margin > 0.0 {
            1.0
        } else if margin < 0.0 {
            0.0
        } else {
            0.5
        };
        let root_side_black = self.root_to_move == Color::Black;
        for (k, &i) in self.path.iter().enumerate() {
            let mover_is_black = (k % 2 == 1) == root_side_black;
            let n = &mut self.nodes[i as usize];
            n.visits += 1;
            n.wins += if mover_is_black {
                black_result
            } else {
                1.0 - black_result
            };
        }
        if rave {
            self.update_amaf(black_result);
        }
    }

    /// RAVE back-up: at every node of the path, each child whose move its mover played
    /// first at that point later in the simulation (tree or playout) counts the result.
    fn update_amaf(&mut self, black_result: f32) {
        // 0 = nobody played the point, else 1 + the colour index of the first to play it
        let mut first = [0u8; NN];
        for &(c, p) in &self.trace {
            let f = &mut first[p as usize];
            if *f == 0 {
                *f = c + 1;
            }
        }
        let root_side_black = self.root_to_move == Color::Black;
        for k in 0..self.path.len() {
            let n = self.nodes[self.path[k] as usize];
            if !n.is_expanded() {
                continue;
            }
            // the children of the node at depth k are moves of the side to move there
            let mover_black = (k % 2 == 0) == root_side_black;
            let mover = if mover_black {
                Color::Black
            } else {
                Color::White
            };
            let result = if mover_black {
                black_result
            } else {
                1.0 - black_result
            };
            let tag = mover.idx() as u8 + 1;
            let first_child = n.first as usize;
            for ch in &mut self.nodes[first_child..first_child + n.n_children as usize] {
                if (ch.mv as usize) < NN && first[ch.mv as usize] == tag {
                    ch.amaf_visits += 1;
                    ch.amaf_wins += result;
                }
            }
        }
    }

    /// UCB1 over the children of an expanded node: the first unvisited child, else the
    /// highest `wins/visits + c * sqrt(ln N / visits)`.
    #[inline]
    fn select(&self, node: usize) -> usize {
        if self.settings.rave > 0.0 {
            return self.select_rave(node);
        }
        let parent = &self.nodes[node];
        let first = parent.first as usize;
        let children = &self.nodes[first..first + parent.n_children as usize];
        let scale = self.settings.c * (parent.visits.max(1) as f32).ln().sqrt();
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        for (k, ch) in children.iter().enumerate() {
            if ch.visits == 0 {
                return first + k;
            }
            let inv = 1.0 / ch.visits as f32;
            let value = ch.wins * inv + scale * inv.sqrt();
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
    fn select_rave(&self, node: usize) -> usize {
        let parent = &self.nodes[node];
        let first = parent.first as usize;
        let children = &self.nodes[first..first + parent.n_children as usize];
        let equiv = self.settings.rave;
        let scale = self.settings.c * (parent.visits.max(1) as f32).ln().sqrt();
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        for (k, ch) in children.iter().enumerate() {
            let (n, na) = (ch.visits as f32, ch.amaf_visits as f32);
            if ch.visits == 0 && ch.amaf_visits == 0 {
                return first + k;
            }
            let q = if ch.visits > 0 { ch.wins / n } else { 0.0 };
            let mut value = if ch.amaf_visits > 0 {
                let beta = na / (na + n + n * na / equiv);
                beta * (ch.amaf_wins / na) + (1.0 - beta) * q
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

    /// Creates the children of `node`; false when the node budget is spent.
    fn expand(&mut self, node: usize, board: &Board, color: Color, depth: u32) -> bool {
        let mut cand = [0u8; NN];
        let mut n = 0;
        let allowed = if node == 0 {
            self.root_allowed
        } else {
            crate::rules::BOARD
        };
        for i in BitIter(board.empty_bits() & allowed) {
            let p = Point::new(i);
            if board.is_legal(color, p) && !board.is_eye(color, p) {
                cand[n] = i as u8;
                n += 1;
            }
        }
        if self.nodes.len() + n + 1 > self.settings.max_nodes {
            return false;
        }
        let s = self.settings;
        let mut dropped: Bits = 0;
        if let Some(tp) = s.prune.filter(|tp| depth >= tp.depth) {
            let drop = drop_count(n, tp.x, s.prune_count, s.keep_min);
            let scores = self.slots[tp.slot].scores(board, color);
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
            let scores = self.slots[sp.slot].scores(board, color);
            // `prune_count` counts soft pruning's x as it counts tree pruning's; no minimum is
            // kept unpenalised (keep_min 0), so `legal` penalises min(x, m) as it always did.
            // Counting x of the legal moves penalises every move once fewer than x are
            // legal, and the unpenalised pass then looks best (the soft-pruning arm counted that way won 0 of 100).
            let drop = drop_count(m, sp.x, s.prune_count, 0);
            soft = worst_mask(&kept[..m], scores, drop);
            soft_visits = sp.visits;
        }
        let heuristics = if s.priors {
            let last = self.last_moves();
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
        let policy = s
            .policy
            .map(|pp| (pp.weight, *self.slots[pp.slot].scores(board, color)));
        let first = self.nodes.len();
        for (k, &c) in cand[..n].iter().enumerate() {
            let b = bit(c as usize);
            if dropped & b == 0 {
                let soft_prior = if soft & b != 0 { soft_visits } else { 0 };
                let (mut pv, mut pw) = heuristics.as_ref().map_or((0, 0.0), |h| h[k]);
                if let Some((weight, bad)) = &policy {
                    let v = (weight * (1.0 - bad[c as usize]).clamp(0.0, 1.0).sqrt()).round();
                    pv += v as u16;
                    pw += v;
                }
                self.nodes
                    .push(Node::with_prior(c as usize, soft_prior + pv, pw));
            }
        }
        self.nodes.push(Node::new(PASS_INDEX, 0));
        let count = self.nodes.len() - first;
        let parent = &mut self.nodes[node];
        parent.first = first as u32;
        parent.n_children = count as u8;
        true
    }

    /// Plays the leaf position out with the configured policy; black's margin.
    fn playout(&mut self, board: &mut Board, color: Color) -> f32 {
        let cfg = self.settings.playout;
        let last = self.last_moves();
        let trace = (self.settings.rave > 0.0).then_some(&mut self.trace);
        let rng = &mut self.rng;
        let result = match self.settings.playout_prune {
            None => match self.settings.playout_kind {
                PlayoutKind::Uniform if trace.is_none() => {
                    playout::run(board, color, &mut Uniform, rng, &cfg, |_, _| {})
                }
                PlayoutKind::Uniform => run_traced(board, color, &mut Uniform, rng, &cfg, trace),
                PlayoutKind::Heavy => {
                    let mut policy = Heavy::new(self.settings.heavy, last);
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
                        let scores = slot.scores(board, c);
                        allowed[c.idx()] =
                            crate::rules::BOARD & !worst_share_mask(board, scores, pp.share);
                    }
                    let mut policy = LeafMasked { allowed };
                    run_traced(board, color, &mut policy, rng, &cfg, trace)
                }
                PlayoutEval::Move => {
                    let mut policy = EveryMove::new(&mut self.slots[pp.slot], pp.share);
                    run_traced(board, color, &mut policy, rng, &cfg, trace)
                }
            },
        };
        result.margin
    }

    /// The principal variation through the root's child number `child` (an index into
    /// [`Worker::root_children`]): its move, then the most-visited child at each level, at
    /// most `max_len` moves, ending where the tree stops or the best child has one visit or none.
    pub fn principal_variation(&self, child: usize, max_len: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        let root = &self.nodes[0];
        if child >= root.n_children as usize {
            return pv;
        }
        let mut node = root.first as usize + child;
        while pv.len() < max_len {
            let n = &self.nodes[node];
            pv.push(Move::from_index(n.mv as usize).expect("node move index"));
            let kids = n.first as usize..n.first as usize + n.n_children as usize;
            match kids.max_by_key(|&k| (self.nodes[k].real_visits(), std::cmp::Reverse(k))) {
                // A child with one visit is only the first one tried, not a choice.
                Some(k) if n.is_expanded() && self.nodes[k].real_visits() > 1 => node = k,
                _ => break,
            }
        }
        pv
    }
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

    fn worker(prune: Option<TreePruning>, soft: Option<SoftPruning>) -> Worker {
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
        };
        let slots = vec![PrunerSlot::new(Arc::new(RulePruner::default()), 64)];
        Worker::new(settings, slots, FastRng::new(1))
    }

    /// Children counts of every expanded node, by depth.
    fn children_by_depth(w: &Worker) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); 8];
        let mut stack = vec![(0usize, 0usize)];
        while let Some((i, d)) = stack.pop() {
            let n = w.nodes[i];
            if n.is_expanded() && d < 8 {
                out[d].push(n.n_children as usize);
                for k in 0..n.n_children as usize {
                    stack.push((n.first as usize + k, d + 1));
                }
            }
        }
        out
    }

    #[test]
    fn pruning_applies_from_its_depth_down_and_keeps_pass() {
        let mut w = worker(
            Some(TreePruning {
                slot: 0,
                x: 30,
                depth: 1,
            }),
            None,
        );
        w.search(3000, None);
        let by_depth = children_by_depth(&w);
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
        for n in &w.nodes {
            if n.is_expanded() {
                let last = w.nodes[n.first as usize + n.n_children as usize - 1];
                assert_eq!(last.mv as usize, PASS_INDEX);
            }
        }
    }

    #[test]
    fn backup_counts_wins_for_the_player_who_moved() {
        let mut w = worker(None, None);
        w.search(2000, None);
        let root = *w.root();
        assert_eq!(root.visits, 2000);
        let children = w.root_children();
        let visits: u32 = children.iter().map(|c| c.visits).sum();
        assert_eq!(visits, 2000);
        // The root's wins are white's (the side that moved into it); each child's are
        // black's: together they account for every simulation.
        let black_wins: f32 = children.iter().map(|c| c.wins).sum();
        assert!((black_wins + root.wins - 2000.0).abs() < 1e-3);
        // Each simulation through an expanded child either stopped there (black's win or
        // not) or went on to one grandchild, where white's result is the complement of
        // black's at the child: so child wins + grandchild wins lie in [through, visits].
        let mut checked = 0;
        for c in children.iter().filter(|c| c.is_expanded()) {
            let g = &w.nodes[c.first as usize..c.first as usize + c.n_children as usize];
            let through: u32 = g.iter().map(|x| x.visits).sum();
            let g_wins: f32 = g.iter().map(|x| x.wins).sum();
            let total = c.wins + g_wins;
            assert!(
                total >= through as f32 - 1e-3 && total <= c.visits as f32 + 1e-3,
                "{total} not in [{through}, {}]",
                c.visits
            );
            checked += 1;
        }
        assert!(checked > 10);
    }
}
