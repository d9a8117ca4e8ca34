//! The exact endgame solver (paper C in `docs/papers.md`): depth-first search to the end of the game (two
//! passes in a row) with NegaMax (alpha-beta), NegaScout, MTD(f) (first guess 0) and MTD(bi)
//! (window -64..64, widened to the full -81..81 range if the value lies outside), all sharing
//! one transposition table keyed by the stones' Zobrist hash, the side to move, the simple-ko
//! point and whether the previous move was a pass.
//!
//! **Scoring rule.** Area (Tromp-Taylor) counting of the position after two passes: stones
//! plus empty points that reach only one colour. Internally the value is black's area minus
//! white's area, an integer; komi is subtracted only when reporting, so it never changes the
//! search. Simple ko is enforced by the board and positional superko along the search path (a move
//! that recreates a position of the current path is skipped; the transposition table
//! ignores this path dependence, as usual). A path longer than `max_ply` is scored as it
//! stands (counted in [`SolveResult::ply_cap_hits`]).
//!
//! **Moves.** Every legal move and pass, except filling one's own eye ([`Board::is_eye`], the
//! playouts' rule), in every mode: without it even a one-dame problem never finishes,
//! because the search must prove that suicidal eye-filling lines lose, and a captured group
//! leaves a whole-board game behind.
//!
//! **Pruning.** With `kakeme` on, every node drops the points of [`kakeme_mask`]; with
//! `defender` on, the root also computes [`defender_mask`] once ("look 2 moves ahead before
//! searching") and those points are dropped for both colours for the whole search, except
//! next to stones played since the root: an invader's stone or a block brings its
//! neighbours back, since they may be needed to capture or to answer. Pass is
//! always a candidate, so every node has a move.

use std::time::Instant;

use super::kakeme::{defender_mask, kakeme_mask};
use crate::rules::tables::{NEIGHBOUR_COUNT, NEIGHBOURS, ZOBRIST_KO, ZOBRIST_WHITE_TO_MOVE, grow};
use crate::rules::{BitIter, Bits, Board, Color, Move, NN, Point, score};

/// The search algorithm.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// Alpha-beta NegaMax with a full window.
    Negamax,
    /// NegaScout (principal variation search): null windows after the first move.
    Negascout,
    /// MTD(f): null-window searches converging from a first guess of 0.
    Mtdf,
    /// MTD(bi): bisection of the window -64..64 with null-window searches.
    Mtdbi,
}

impl Algorithm {
    pub const ALL: [Algorithm; 4] = [
        Algorithm::Negamax,
        Algorithm::Negascout,
        Algorithm::Mtdf,
        Algorithm::Mtdbi,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Negamax => "negamax",
            Algorithm::Negascout => "negascout",
            Algorithm::Mtdf => "mtdf",
            Algorithm::Mtdbi => "mtdbi",
        }
    }
}

/// Tunables of one solve.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SolverConfig {
    /// Search algorithm.
    pub algorithm: Algorithm,
    /// Drop the kake-me test's points at every node.
    pub kakeme: bool,
    /// Drop the defender extension's points (computed once at the root) everywhere.
    pub defender: bool,
    /// Stop after this many nodes (0 = no limit); the result is then marked unfinished.
    pub node_limit: u64,
    /// Stop after this many seconds (0 = no limit); the result is then marked unfinished.
    pub time_limit: f64,
    /// The transposition table has 2^tt_bits entries of 16 bytes.
    pub tt_bits: u32,
    /// With `defender`, also recompute the defender extension at every node this many plies
    /// below the root (0: at the root only, as in the paper) and apply it to its subtree.
    pub defender_depth: u32,
    /// Paths longer than this are scored as they stand (a guard against cycles).
    pub max_ply: u32,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            algorithm: Algorithm::Negascout,
            kakeme: true,
            defender: true,
            node_limit: 0,
            time_limit: 0.0,
            tt_bits: 21,
            defender_depth: 0,
            max_ply: 200,
        }
    }
}

/// What a solve found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveResult {
    /// Black's area minus white's area under best play (no komi), when finished.
    pub score: Option<i32>,
    /// A best move for the side to move, when finished.
    pub best: Option<Move>,
    pub nodes: u64,
    pub seconds: f64,
    /// Points the root's defender extension removed (0 when off).
    pub defender_removed: Bits,
    /// Times a path hit `max_ply`.
    pub ply_cap_hits: u64,
}

impl SolveResult {
    pub fn finished(&self) -> bool {
        self.score.is_some()
    }
}

const INF: i32 = 1000;
const EXACT: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const PASS_CODE: u8 = NN as u8;
const NO_MOVE: u8 = u8::MAX;
const PASS_KEY: u64 = 0x9d1c_7e4b_3a2f_5501;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    value: i16,
    flag: u8,
    best: u8,
}

/// A search position: the board, who moves, and whether the last move was a pass.
#[derive(Clone, Copy)]
struct Node {
    board: Board,
    to_move: Color,
    passed: bool,
}

impl Node {
    fn key(&self) -> u64 {
        let mut k = self.board.hash();
        if self.to_move == Color::White {
            k ^= ZOBRIST_WHITE_TO_MOVE;
        }
        if let Some(p) = self.board.ko_point() {
            k ^= ZOBRIST_KO[p.index()];
        }
        if self.passed {
            k ^= PASS_KEY;
        }
        k
    }

    /// Area margin from the side to move's point of view.
    fn terminal_value(&self) -> i32 {
        let c = score::area(&self.board);
        let m = c.black as i32 - c.white as i32;
        if self.to_move == Color::Black { m } else { -m }
    }

    fn child(&self, code: u8) -> Node {
        let mut board = self.board;
        let passed = code == PASS_CODE;
        if passed {
            board
                .play_move(self.to_move, Move::Pass)
                .expect("pass is legal");
        } else {
            board.play_legal(self.to_move, Point::new(code as usize));
        }
        Node {
            board,
            to_move: self.to_move.opponent(),
            passed,
        }
    }
}

/// The solver: configuration, transposition table and counters.
pub struct Solver {
    config: SolverConfig,
    table: Vec<Entry>,
    mask: usize,
    static_pruned: Bits,
    /// Defender-extension masks in force on the current path, each with the stones of the
    /// position it was computed in (its points next to newer stones come back).
    defender_stack: Vec<(Bits, Bits)>,
    /// Defender masks of interior nodes (ply <= `defender_depth`), by node key.
    defender_cache: std::collections::HashMap<u64, Bits>,
    /// Stone hashes of the positions on the current search path (positional superko).
    path: Vec<u64>,
    /// Kake-me masks by stone hash (the test depends on the stones only).
    mask_cache: Vec<(u64, Bits)>,
    nodes: u64,
    ply_cap_hits: u64,
    start: Instant,
    aborted: bool,
}

impl Solver {
    pub fn new(config: SolverConfig) -> Solver {
        let size = 1usize << config.tt_bits.clamp(10, 28);
        Solver {
            config,
            table: vec![Entry::default(); size],
            mask: size - 1,
            static_pruned: 0,
            defender_stack: Vec::new(),
            defender_cache: std::collections::HashMap::new(),
            mask_cache: vec![(0, 0); 1 << 16],
            path: Vec::with_capacity(256),
            nodes: 0,
            ply_cap_hits: 0,
            start: Instant::now(),
            aborted: false,
        }
    }

    pub fn config(&self) -> &SolverConfig {
        &self.config
    }

    /// Solves `board` with `to_move` to play (the previous move was not a pass).
    pub fn solve(&mut self, board: &Board, to_move: Color) -> SolveResult {
        self.table.fill(Entry::default());
        self.mask_cache.fill((0, 0));
        self.path.clear();
        self.nodes = 0;
        self.ply_cap_hits = 0;
        self.aborted = false;
        self.start = Instant::now();
        self.defender_cache.clear();
        self.static_pruned = if self.config.defender {
            defender_mask(board, to_move)
        } else {
            0
        };
        self.defender_stack.clear();
        self.defender_stack.push((
            self.static_pruned,
            !board.empty_bits() & crate::rules::BOARD,
        ));
        let root = Node {
            board: *board,
            to_move,
            passed: false,
        };
        let (value, best) = match self.config.algorithm {
            Algorithm::Negamax => self.root_search(&root, false),
            Algorithm::Negascout => self.root_search(&root, true),
            Algorithm::Mtdf => {
                let v = self.mtdf(&root, 0);
                (v, self.root_best(&root, v))
            }
            Algorithm::Mtdbi => {
                let v = self.mtdbi(&root, -64, 64);
                (v, self.root_best(&root, v))
            }
        };
        let finished = !self.aborted;
        let black_value = if to_move == Color::Black {
            value
        } else {
            -value
        };
        SolveResult {
            score: finished.then_some(black_value),
            best: if finished { best } else { None },
            nodes: self.nodes,
            seconds: self.start.elapsed().as_secs_f64(),
            defender_removed: self.static_pruned,
            ply_cap_hits: self.ply_cap_hits,
        }
    }

    /// Candidate moves of a node, best first: transposition-table move, captures, contact
    /// moves, the rest, pass last.
    /// The kake-me mask of `b`, through a small direct-mapped cache.
    fn kakeme(&mut self, b: &Board) -> Bits {
        let h = b.hash() | 1; // never 0, so an empty slot never matches
        let slot = (h >> 7) as usize & (self.mask_cache.len() - 1);
        let (k, m) = self.mask_cache[slot];
        if k == h {
            return m;
        }
        let m = kakeme_mask(b);
        self.mask_cache[slot] = (h, m);
        m
    }

    fn moves(&mut self, node: &Node, tt_move: u8) -> Vec<u8> {
        let b = &node.board;
        let mut pruned = 0;
        let stones = !b.empty_bits() & crate::rules::BOARD;
        for &(d, base) in &self.defender_stack {
            // a stone played next to a defender point (an invasion, a block) brings it back:
            // it may be needed to capture or to answer
            pruned |= d & !grow(stones & !base);
        }
        if self.config.kakeme {
            pruned |= self.kakeme(b);
        }
        let c = node.to_move;
        let mut scored: Vec<(i32, u8)> = Vec::with_capacity(32);
        for i in BitIter(b.empty_bits() & !pruned) {
            let p = Point::new(i);
            // Filling one's own eye is never searched, in every mode (the playouts' rule).
            if !b.is_legal(c, p) || b.is_eye(c, p) {
                continue;
            }
            let mut s = 0;
            for &n in &NEIGHBOURS[i][..NEIGHBOUR_COUNT[i] as usize] {
                let q = Point::new(n as usize);
                match b.color_at(q) {
                    Some(col) if col == c => s += 1,
                    Some(_) => {
                        s += 2;
                        if b.liberty_count(q) == 1 {
                            s += 20;
                        }
                    }
                    None => {}
                }
            }
            if i as u8 == tt_move {
                s += 1000;
            }
            scored.push((s, i as u8));
        }
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut out: Vec<u8> = scored.into_iter().map(|(_, m)| m).collect();
        if tt_move == PASS_CODE {
            out.insert(0, PASS_CODE);
        } else {
            out.push(PASS_CODE);
        }
        out
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            let c = &self.config;
            if (c.node_limit > 0 && self.nodes >= c.node_limit)
                || (c.time_limit > 0.0 && self.start.elapsed().as_secs_f64() >= c.time_limit)
            {
                self.aborted = true;
            }
        }
        self.aborted
    }

    /// Fail-soft alpha-beta with memory (NegaScout when `scout`); values are from the side
    /// to move's point of view.
    fn search(&mut self, node: &Node, mut alpha: i32, mut beta: i32, ply: u32, scout: bool) -> i32 {
        if self.tick() {
            return 0;
        }
        if ply >= self.config.max_ply {
            self.ply_cap_hits += 1;
            return node.terminal_value();
        }
        let key = node.key();
        let slot = key as usize & self.mask;
        let e = self.table[slot];
        let mut tt_move = NO_MOVE;
        if e.key == key {
            let v = e.value as i32;
            match e.flag {
                EXACT => return v,
                LOWER if v >= beta => return v,
                UPPER if v <= alpha => return v,
                LOWER => alpha = alpha.max(v),
                _ => beta = beta.min(v),
            }
            tt_move = e.best;
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut best = -INF;
        let mut best_move = NO_MOVE;
        self.path.push(node.board.hash());
        let extended = self.config.defender && ply >= 1 && ply <= self.config.defender_depth;
        if extended {
            let d = match self.defender_cache.get(&key) {
                Some(&d) => d,
                None => {
                    let d = defender_mask(&node.board, node.to_move);
                    self.defender_cache.insert(key, d);
                    d
                }
            };
            self.defender_stack
                .push((d, !node.board.empty_bits() & crate::rules::BOARD));
        }
        let mut k = 0;
        for code in self.moves(node, tt_move) {
            let v = if code == PASS_CODE && node.passed {
                // the second pass ends the game: score the position
                self.nodes += 1;
                -node.child(code).terminal_value()
            } else {
                let child = node.child(code);
                if code != PASS_CODE && self.path.contains(&child.board.hash()) {
                    continue; // positional superko on the search path
                }
                k += 1;
                let k = k - 1;
                if scout && k > 0 {
                    let a = alpha.max(best);
                    let mut v = -self.search(&child, -a - 1, -a, ply + 1, scout);
                    if v > a && v < beta && !self.aborted {
                        v = -self.search(&child, -beta, -v, ply + 1, scout);
                    }
                    v
                } else {
                    -self.search(&child, -beta, -alpha.max(best), ply + 1, scout)
                }
            };
            if self.aborted {
                self.path.pop();
                if extended {
                    self.defender_stack.pop();
                }
                return 0;
            }
            if v > best {
                best = v;
                best_move = code;
                if v >= beta {
                    break;
                }
            }
        }
        self.path.pop();
        if extended {
            self.defender_stack.pop();
        }
        let flag = if best <= alpha0 {
            UPPER
        } else if best >= beta0 {
            LOWER
        } else {
            EXACT
        };
        self.table[slot] = Entry {
            key,
            value: best as i16,
            flag,
            best: best_move,
        };
        best
    }

    /// Full-window search at the root, returning the value and the best move.
    fn root_search(&mut self, root: &Node, scout: bool) -> (i32, Option<Move>) {
        let v = self.search(root, -INF, INF, 0, scout);
        (v, self.root_best(root, v))
    }

    /// A root move whose value is `v` (checked with null windows on a warm table).
    fn root_best(&mut self, root: &Node, v: i32) -> Option<Move> {
        if self.aborted {
            return None;
        }
        let e = self.table[root.key() as usize & self.mask];
        let tt = if e.key == root.key() { e.best } else { NO_MOVE };
        for code in self.moves(root, tt) {
            let value = if code == PASS_CODE && root.passed {
                -root.child(code).terminal_value()
            } else {
                -self.search(&root.child(code), -v, -v + 1, 1, false)
            };
            if self.aborted {
                return None;
            }
            if value >= v {
                return Some(if code == PASS_CODE {
                    Move::Pass
                } else {
                    Move::Play(Point::new(code as usize))
                });
            }
        }
        None
    }

    /// MTD(f) (Plaat et al.): null-window searches until the bounds meet.
    fn mtdf(&mut self, root: &Node, first: i32) -> i32 {
        let (mut lower, mut upper) = (-INF, INF);
        let mut g = first;
        while lower < upper && !self.aborted {
            let beta = if g == lower { g + 1 } else { g };
            g = self.search(root, beta - 1, beta, 0, false);
            if g < beta {
                upper = g;
            } else {
                lower = g;
            }
        }
        g
    }

    /// MTD(bi): bisection of `[lo, hi]` with null-window searches; widened to the full
    /// score range when the value turns out to lie outside the window.
    fn mtdbi(&mut self, root: &Node, lo: i32, hi: i32) -> i32 {
        let full = NN as i32;
        let (mut lower, mut upper) = (lo, hi);
        // the window's edges are assumptions until a search proves a bound
        let (mut lower_proven, mut upper_proven) = (false, false);
        loop {
            while lower < upper && !self.aborted {
                let beta = (lower + upper + 1).div_euclid(2);
                let g = self.search(root, beta - 1, beta, 0, false);
                if g < beta {
                    upper = g;
                    upper_proven = true;
                } else {
                    lower = g;
                    lower_proven = true;
                }
            }
            if self.aborted {
                return 0;
            }
            if !upper_proven {
                upper = full;
                upper_proven = true;
            } else if !lower_proven {
                lower = -full;
                lower_proven = true;
            } else {
                return lower;
            }
        }
    }
}

/// Solves with a fresh solver.
pub fn solve(board: &Board, to_move: Color, config: &SolverConfig) -> SolveResult {
    Solver::new(*config).solve(board, to_move)
}
