//! The playout-grade board: stones, chains with pseudo-liberty counts, captures, suicide and
//! simple-ko rules, an incremental Zobrist hash and the O(1) empty-point list.
//!
//! Chains are a union-find with one level: every stone names its chain's representative
//! point, the representative holds the chain's size and its pseudo-liberty count (the number
//! of (stone, empty neighbour) pairs, as in libego), and a circular `next` list links each
//! chain's stones. A move decrements the counts of the chains around it, merging adds them,
//! a capture is "count became zero" and walks the list. This is the modern equivalent of the
//! two-level tree of paper B (`docs/papers.md`). Exact liberty sets ([`Board::chain_liberties`],
//! [`Board::liberty_count`]) are computed on demand by walking the chain; "is `i` the only
//! liberty of this chain" is "the count equals the number of the chain's stones next to `i`",
//! which is what the suicide, capture and ko tests need.
//!
//! Every point also keeps packed counts of its empty, black and white neighbours (`nbr`), so
//! the playout's two commonest questions, "can this be suicide?" and "is this an eye shape?",
//! are one load each. Arrays read through neighbour and chain entries have a spare last slot
//! standing for "off the board" / "no chain" (docs/notes-speed.md has the measurements).
//!
//! The empty points live in an array whose first `n_empty` entries are the empty points
//! (paper B in `docs/papers.md`): a random empty point is one index draw, removal is a swap with the last
//! entry, captured stones are appended. `empty_pos` keeps every point's slot for O(1) removal.
//!
//! The board knows nothing of history: positional superko, passes, komi and scoring policy
//! live in [`Game`](super::Game).

use std::fmt;

use thiserror::Error;

use super::coord::{Move, NN, Point};
use super::tables;
use super::tables::{
    BOARD, BitIter, Bits, DIAGONAL_MASK, NEIGHBOUR_COUNT, NEIGHBOUR_MASK, NEIGHBOURS,
    NEIGHBOURS_PADDED, ON_EDGE, ZOBRIST, bit, flood,
};
use crate::util::rng::FastRng;

/// A stone colour. The discriminants are the paper's input encoding (1 black, 2 white).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum Color {
    Black = 1,
    White = 2,
}

impl Color {
    #[inline(always)]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
    /// 0 for black, 1 for white: the index into per-colour arrays.
    #[inline(always)]
    pub const fn idx(self) -> usize {
        self as usize - 1
    }
    /// `B` or `W`, as in SGF and GTP.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }
    /// Reads `b`, `black`, `w`, `white` in any case (GTP and SGF spellings).
    pub fn parse(text: &str) -> Option<Color> {
        match text.trim().to_ascii_lowercase().as_str() {
            "b" | "black" => Some(Color::Black),
            "w" | "white" => Some(Color::White),
            _ => None,
        }
    }
}

/// Why 81 cells are not a position ([`Board::from_cells`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum CellsError {
    #[error("cell {index} holds {value}, expected 0, 1 or 2")]
    BadCell { index: usize, value: u8 },
    #[error("the chain at {0} has no liberties")]
    NoLiberties(Point),
    #[error("the chain at {0} touches its liberties more than 255 times")]
    PseudoLiberties(Point),
}

/// Why a move may not be played. The game layer adds superko.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum IllegalMove {
    #[error("point {0} is occupied")]
    Occupied(Point),
    #[error("move at {0} is suicide")]
    Suicide(Point),
    #[error("move at {0} retakes a ko")]
    Ko(Point),
    #[error("move at {0} repeats an earlier position (positional superko)")]
    Superko(Point),
    #[error("the game is already over")]
    GameOver,
}

/// Marker for "no point" in the compact `u8` fields.
const NONE: u8 = u8::MAX;

/// The chain entry of an empty point: the spare slot. So every entry of [`Board::chain`]
/// indexes [`Board::pseudo_libs`] and the other per-chain arrays in bounds (the invariant
/// behind the unchecked reads of the hot paths, validated by [`Board::check_invariants`]).
const NO_CHAIN: u8 = NN as u8;

/// The empty-neighbour field of [`Board::nbr`].
const NBR_EMPTY: u16 = 0xF;

/// The spare cell's value: neither empty nor a colour.
const OFF_BOARD_CELL: u8 = 3;

/// 0, 1, ..., 79, for the vectorised scans: a stone is its chain's representative when
/// `chain[i] == i`.
#[cfg(target_arch = "x86_64")]
static INDEX80: [u8; 80] = {
    let mut t = [0u8; 80];
    let mut i = 0;
    while i < 80 {
        t[i] = i as u8;
        i += 1;
    }
    t
};

/// Shift of colour `c`'s field in [`Board::nbr`] (4 for black, 8 for white).
#[inline(always)]
const fn nbr_shift(c: u8) -> u32 {
    4 * c as u32
}

/// Neighbour counts of the empty board (off-board neighbours count for both colours).
const EMPTY_NBR: [u16; NN + 1] = {
    let mut t = [0u16; NN + 1];
    let mut i = 0;
    while i < NN {
        let k = NEIGHBOUR_COUNT[i] as u16;
        let off = 4 - k;
        t[i] = k | (off << 4) | (off << 8);
        i += 1;
    }
    t
};

/// A bit outside the board (bit 127) for first-line points, 0 elsewhere: see
/// [`Board::diagonals_allow_eye`].
const EDGE_FLAG: [Bits; NN] = {
    let mut t = [0u128; NN];
    let mut i = 0;
    while i < NN {
        if NEIGHBOUR_COUNT[i] < 4 {
            t[i] = 1u128 << 127;
        }
        i += 1;
    }
    t
};

/// [`Board::play_legal`]'s answer to a move on an occupied point, out of the hot path.
#[cold]
#[inline(never)]
fn occupied_panic(p: Point) -> ! {
    panic!("play_legal called on the occupied point {p}")
}

/// A list of candidate moves ([`Board::candidates`]): flat indices, increasing.
#[derive(Clone, Copy, Debug)]
pub struct Candidates {
    points: [u8; NN],
    len: usize,
}

impl Candidates {
    /// The candidates as flat indices.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.points[..self.len]
    }

    /// The candidates in a buffer the caller may reorder.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.points[..self.len]
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A 9x9 position. `Copy`: the search and playouts clone it freely (784 bytes).
#[derive(Clone, Copy)]
pub struct Board {
    /// 0 empty, 1 black, 2 white (the paper's encoding); the spare last slot is
    /// [`OFF_BOARD_CELL`], what [`NEIGHBOURS_PADDED`]'s off-board entries read.
    cells: [u8; NN + 1],
    /// Stones of each colour (index by [`Color::idx`]).
    stones: [Bits; 2],
    /// Representative point of each stone's chain; [`NO_CHAIN`] (the spare slot) on empty
    /// points and in the spare slot itself, so off-board and empty reads land on the spare
    /// liberty entry. Every entry is at most `NN`.
    chain: [u8; NN + 1],
    /// Next stone of the same chain (a circular list through every chain's stones): merging
    /// splices two lists in O(1) and a capture walks one, with one byte per point where a
    /// stone mask per chain would cost sixteen (the board is copied for every playout).
    next: [u8; NN],
    /// Pseudo-liberties of the chain whose representative is the index (stale elsewhere):
    /// the number of (stone, empty neighbour) pairs, so an empty point next to two of the
    /// chain's stones counts twice. Zero exactly when the chain has no liberty; the only
    /// liberty is `i` exactly when the count equals the number of the chain's stones next to
    /// `i`. One byte per chain where an exact set costs sixteen, and a move changes it by
    /// plain decrements (at most 2 x 81 + 2 < 256: a chain of `n` stones has at most `2n + 2`).
    /// The spare slot is scratch: the branch-free updates write it, nothing reads it.
    pseudo_libs: [u8; NN + 1],
    /// Stone count of the chain whose representative is the index (avoids popcount).
    chain_size: [u8; NN],
    /// Empty points: the first `n_empty` entries.
    empty: [u8; NN],
    /// Slot of each empty point in `empty`.
    empty_pos: [u8; NN],
    n_empty: u8,
    /// Point forbidden by simple ko for the next move, or `NONE`.
    ko: u8,
    /// Packed neighbour counts of every point: bits 0-3 empty neighbours, bits 4-7 black
    /// neighbours, bits 8-11 white neighbours, where off-board neighbours count for both
    /// colours. One load answers "has an empty neighbour" (cannot be suicide) and "every
    /// neighbour is `c`'s" (eye shape), the two tests every playout candidate needs.
    nbr: [u16; NN + 1],
    /// Zobrist hash of the stones (no side to move, no ko).
    hash: u64,
    /// Prisoners taken by black and by white.
    captures: [u32; 2],
}

/// For the chain entries `r` of a point's four neighbours: how many of the four belong to
/// each one's chain. The point is a chain's only liberty exactly when the chain's
/// pseudo-liberty count equals this number (each stone next to it counts it once).
#[inline(always)]
fn adjacency_counts(r: &[usize; 4]) -> [u8; 4] {
    let e01 = (r[0] == r[1]) as u8;
    let e02 = (r[0] == r[2]) as u8;
    let e03 = (r[0] == r[3]) as u8;
    let e12 = (r[1] == r[2]) as u8;
    let e13 = (r[1] == r[3]) as u8;
    let e23 = (r[2] == r[3]) as u8;
    [
        1 + e01 + e02 + e03,
        1 + e01 + e12 + e13,
        1 + e02 + e12 + e23,
        1 + e03 + e13 + e23,
    ]
}

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl PartialEq for Board {
    /// Two boards are equal when they hold the same stones and ko point (the order of the
    /// empty list and the chain representatives are implementation details).
    fn eq(&self, other: &Self) -> bool {
        self.cells[..NN] == other.cells[..NN] && self.ko == other.ko
    }
}

impl Board {
    /// The empty board.
    pub fn new() -> Board {
        let mut empty = [0u8; NN];
        let mut empty_pos = [0u8; NN];
        for i in 0..NN {
            empty[i] = i as u8;
            empty_pos[i] = i as u8;
        }
        Board {
            cells: {
                let mut cells = [0; NN + 1];
                cells[NN] = OFF_BOARD_CELL;
                cells
            },
            stones: [0; 2],
            chain: { [NO_CHAIN; NN + 1] },
            next: [NONE; NN],
            pseudo_libs: [0; NN + 1],
            chain_size: [0; NN],
            empty,
            empty_pos,
            n_empty: NN as u8,
            ko: NONE,
            nbr: EMPTY_NBR,
            hash: 0,
            captures: [0; 2],
        }
    }

    // ----- queries -------------------------------------------------------------------------

    /// Contents of a point: `None` when empty.
    #[inline]
    pub fn color_at(&self, p: Point) -> Option<Color> {
        match self.cells[p.index()] {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    /// The paper's 81 inputs: 0 empty, 1 black, 2 white, in flat-index order.
    #[inline]
    pub fn cells(&self) -> &[u8; NN] {
        self.cells[..NN].try_into().expect("NN cells")
    }

    /// The cells plus the spare slot `NN`, which reads 3 ("off the board"): neighbour tables
    /// that name off-board points `NN` index it without a branch.
    #[inline(always)]
    pub fn cells_padded(&self) -> &[u8; NN + 1] {
        debug_assert_eq!(self.cells[NN], OFF_BOARD_CELL);
        &self.cells
    }

    /// Stones of one colour as a mask.
    #[inline(always)]
    pub fn stones(&self, c: Color) -> Bits {
        self.stones[c.idx()]
    }

    /// Empty points as a mask.
    #[inline(always)]
    pub fn empty_bits(&self) -> Bits {
        BOARD & !(self.stones[0] | self.stones[1])
    }

    /// The empty points, in the list's current (arbitrary) order.
    pub fn empty_points(&self) -> &[u8] {
        &self.empty[..self.n_empty as usize]
    }

    pub fn empty_count(&self) -> usize {
        self.n_empty as usize
    }

    /// Zobrist hash of the stones alone.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The point simple ko forbids for the next move, if any.
    pub fn ko_point(&self) -> Option<Point> {
        (self.ko != NONE).then(|| Point::new(self.ko as usize))
    }

    /// Prisoners captured so far by `c`.
    pub fn captures(&self, c: Color) -> u32 {
        self.captures[c.idx()]
    }

    /// Stones of the chain through `p` (empty set when `p` is empty).
    #[inline]
    pub fn chain_stones(&self, p: Point) -> Bits {
        let mut m = 0;
        self.for_each_chain_stone(p, |s| m |= bit(s));
        m
    }

    /// Calls `f` with the index of every stone of the chain through `p` (none when `p` is
    /// empty), following the chain's ring of `next` links once round.
    #[inline(always)]
    fn for_each_chain_stone(&self, p: Point, mut f: impl FnMut(usize)) {
        if self.chain[p.index()] == NO_CHAIN {
            return;
        }
        let start = p.index();
        let mut s = start;
        loop {
            f(s);
            s = self.next[s] as usize;
            if s == start {
                return;
            }
        }
    }

    /// Liberties of the chain through `p` (empty set when `p` is empty). Computed by walking
    /// the chain (the board keeps only pseudo-liberty counts).
    #[inline]
    pub fn chain_liberties(&self, p: Point) -> Bits {
        let mut around = 0;
        self.for_each_chain_stone(p, |s| around |= NEIGHBOUR_MASK[s]);
        around & self.empty_bits()
    }

    /// The stones of the chain through `p` and every point next to one of them (stones of
    /// the chain included), in one walk: the liberties are the empty ones, the neighbouring
    /// chains the others (empty sets when `p` is empty).
    #[inline]
    pub fn chain_and_neighbours(&self, p: Point) -> (Bits, Bits) {
        let (mut stones, mut around) = (0, 0);
        self.for_each_chain_stone(p, |s| {
            stones |= bit(s);
            around |= NEIGHBOUR_MASK[s];
        });
        (stones, around)
    }

    /// Number of liberties of the chain through `p` (0 when `p` is empty).
    #[inline]
    pub fn liberty_count(&self, p: Point) -> u32 {
        self.chain_liberties(p).count_ones()
    }

    /// The single liberty of the chain through `p` when it has exactly one (in atari),
    /// else `None` (also for an empty `p`). A liberty touches at most four of the chain's
    /// stones, so more than four pseudo-liberties settle "not in atari" without walking
    /// the chain; only chains with few pseudo-liberties are walked.
    #[inline]
    pub fn atari_liberty(&self, p: Point) -> Option<Point> {
        let r = self.chain[p.index()];
        if r == NO_CHAIN || self.pseudo_libs[r as usize] > 4 {
            return None;
        }
        let libs = self.chain_liberties(p);
        (libs.count_ones() == 1).then(|| Point::new(libs.trailing_zeros() as usize))
    }

    /// Representatives of the chains whose pseudo-liberty count is at most `max`, as a mask.
    /// A chain with `n` liberties has at least `n` and at most `4n` pseudo-liberties (a
    /// liberty touches at most four stones), so `max = 4` keeps every chain in atari and
    /// `max = 8` every chain with two liberties or fewer: the cheap first filter of the
    /// playout heuristics, which would otherwise walk every chain on the board each move.
    #[inline]
    pub fn low_liberty_chains(&self, max: u8) -> Bits {
        self.chains_where(0, max, 0)
    }

    /// Representatives of every chain in atari, exactly. The pseudo-liberty counts settle
    /// most chains without walking them: one pseudo-liberty is one liberty, a lone stone's
    /// pseudo-liberties are its liberties, and more than four are two liberties or more. Only
    /// chains of two or more stones with two to four pseudo-liberties are walked. (The heavy
    /// playouts ask this before every move.)
    #[inline]
    pub fn atari_chains(&self) -> Bits {
        let sure = self.chains_where(1, 1, 0);
        let maybe = self.chains_where(2, 4, 2);
        BitIter(maybe)
            .filter(|&r| self.chain_liberties(Point::new(r)).count_ones() == 1)
            .fold(sure, |m, r| m | bit(r))
    }

    /// Representatives of the chains with `lo..=hi` pseudo-liberties and at least `min_size`
    /// stones, as a mask: the one scan behind [`Board::low_liberty_chains`] and
    /// [`Board::atari_chains`]. Sixteen points per step with SSE2 (part of every x86-64), a
    /// plain loop elsewhere.
    #[inline]
    fn chains_where(&self, lo: u8, hi: u8, min_size: u8) -> Bits {
        #[cfg(target_arch = "x86_64")]
        {
            self.chains_where_sse2(lo, hi, min_size)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.chains_where_scalar(lo, hi, min_size)
        }
    }

    /// [`Board::chains_where`] one point at a time (the reference the SSE2 form is tested
    /// against, and its last point).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn chains_where_scalar(&self, lo: u8, hi: u8, min_size: u8) -> Bits {
        (0..NN)
            .filter(|&i| self.chain_matches(i, lo, hi, min_size))
            .fold(0, |m, i| m | bit(i))
    }

    /// Whether point `i` is the representative of a chain that [`Board::chains_where`] keeps.
    #[inline(always)]
    fn chain_matches(&self, i: usize, lo: u8, hi: u8, min_size: u8) -> bool {
        self.chain[i] as usize == i
            && (lo..=hi).contains(&self.pseudo_libs[i])
            && self.chain_size[i] >= min_size
    }

    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn chains_where_sse2(&self, lo: u8, hi: u8, min_size: u8) -> Bits {
        use std::arch::x86_64::*;
        let mut m: Bits = 0;
        // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are always
        // available; the loads read bytes 16k..16k+16 <= 80, inside `chain`, `pseudo_libs`
        // (NN + 1 bytes each), `chain_size` (NN) and `INDEX80` (80), at any alignment.
        unsafe {
            let (lo, hi, min_size) = (
                _mm_set1_epi8(lo as i8),
                _mm_set1_epi8(hi as i8),
                _mm_set1_epi8(min_size as i8),
            );
            for k in 0..5 {
                let chain = _mm_loadu_si128(self.chain.as_ptr().add(16 * k).cast());
                let plibs = _mm_loadu_si128(self.pseudo_libs.as_ptr().add(16 * k).cast());
                let size = _mm_loadu_si128(self.chain_size.as_ptr().add(16 * k).cast());
                let index = _mm_loadu_si128(INDEX80.as_ptr().add(16 * k).cast());
                let is_rep = _mm_cmpeq_epi8(chain, index);
                // unsigned comparisons as min/max: `x <= hi` is `min(x, hi) == x`
                let in_range = _mm_and_si128(
                    _mm_cmpeq_epi8(_mm_min_epu8(plibs, hi), plibs),
                    _mm_cmpeq_epi8(_mm_max_epu8(plibs, lo), plibs),
                );
                let big = _mm_cmpeq_epi8(_mm_max_epu8(size, min_size), size);
                let keep = _mm_and_si128(is_rep, _mm_and_si128(in_range, big));
                m |= (_mm_movemask_epi8(keep) as u16 as Bits) << (16 * k);
            }
        }
        if self.chain_matches(80, lo, hi, min_size) {
            m |= bit(80);
        }
        m
    }

    /// The representatives of the chains with a stone in `stones` (each chain once), as a
    /// mask: the set form of [`Board::each_chain`].
    #[inline]
    pub fn chain_reps(&self, stones: Bits) -> Bits {
        let mut reps: Bits = 0;
        for i in BitIter(stones) {
            let r = self.chain[i];
            if r != NO_CHAIN {
                reps |= bit(r as usize);
            }
        }
        reps
    }

    /// Representative point of the chain through `p` (a stable chain id until the chain
    /// changes), or `None` when `p` is empty.
    pub fn chain_id(&self, p: Point) -> Option<Point> {
        match self.chain[p.index()] {
            NO_CHAIN => None,
            r => Some(Point::new(r as usize)),
        }
    }

    /// The representative of each chain with a stone in `stones`, each chain once (in the
    /// order of its first stone in `stones`).
    pub fn each_chain(&self, stones: Bits) -> impl Iterator<Item = Point> + '_ {
        let mut seen: Bits = 0;
        BitIter(stones).filter_map(move |i| {
            let rep = self.chain_id(Point::new(i))?;
            let new = seen & bit(rep.index()) == 0;
            seen |= bit(rep.index());
            new.then_some(rep)
        })
    }

    /// True when `p` is an empty point whose orthogonal neighbours are all `c`'s stones and
    /// whose diagonals hold too few opponent stones to make it false (at most one in the
    /// middle, none on the edge). Playouts never fill such a point of their own.
    #[inline]
    pub fn is_eye(&self, c: Color, p: Point) -> bool {
        let i = p.index();
        if (self.nbr[i] >> nbr_shift(c as u8)) & 0xF != 4 {
            return false;
        }
        self.diagonals_allow_eye(c, i)
    }

    /// The diagonal half of [`Board::is_eye`] for a point whose neighbours are all `c`'s.
    #[inline(always)]
    fn diagonals_allow_eye(&self, c: Color, i: usize) -> bool {
        // Opponent diagonals, plus a bit outside the board for first-line points (where a
        // single opponent diagonal already makes the eye false): the eye is true when at most
        // one bit is set. No popcount on the hot path (baseline x86-64 has no POPCNT
        // instruction) and no branch: "at most one" is `x & (x - 1) == 0`.
        let bad = (DIAGONAL_MASK[i] & self.stones[c.opponent().idx()]) | EDGE_FLAG[i];
        bad & bad.wrapping_sub(1) == 0
    }

    /// Checks a stone of colour `c` at `p` against the board's rules (occupied, ko, suicide).
    pub fn check(&self, c: Color, p: Point) -> Result<(), IllegalMove> {
        let i = p.index();
        if self.cells[i] != 0 {
            return Err(IllegalMove::Occupied(p));
        }
        if self.ko == i as u8 {
            return Err(IllegalMove::Ko(p));
        }
        if self.is_suicide(c, i) {
            return Err(IllegalMove::Suicide(p));
        }
        Ok(())
    }

    /// Fast legality test (same rules as [`Board::check`]).
    #[inline]
    pub fn is_legal(&self, c: Color, p: Point) -> bool {
        let i = p.index();
        self.cells[i] == 0 && self.ko != i as u8 && !self.is_suicide(c, i)
    }

    /// Whether `p` is a candidate move for `c`: legal and not filling one of `c`'s own eyes.
    /// The one rule the tree's children, the playouts and the pruning masks share.
    #[inline]
    pub fn is_candidate(&self, c: Color, p: Point) -> bool {
        !self.is_eye(c, p) && self.is_legal(c, p)
    }

    /// The candidate moves of `c` ([`is_candidate`](Self::is_candidate)) among the empty
    /// points in `allowed`, as flat indices in increasing order.
    pub fn candidates(&self, c: Color, allowed: Bits) -> Candidates {
        let mut out = Candidates {
            points: [0; NN],
            len: 0,
        };
        for i in BitIter(self.empty_bits() & allowed) {
            if self.is_candidate(c, Point::new(i)) {
                out.points[out.len] = i as u8;
                out.len += 1;
            }
        }
        out
    }

    /// Would a stone of `c` on the empty point `i` have no liberties and capture nothing?
    #[inline]
    fn is_suicide(&self, c: Color, i: usize) -> bool {
        if self.nbr[i] & NBR_EMPTY != 0 {
            return false;
        }
        self.is_suicide_surrounded(c, i)
    }

    /// [`Board::is_suicide`] for a point with no empty neighbour.
    #[inline(always)]
    fn is_suicide_surrounded(&self, c: Color, i: usize) -> bool {
        !self.surrounded_saved(c, i)
    }

    /// For an empty point `i` with no empty neighbour: does a stone of `c` there join a chain
    /// that keeps another liberty, or capture? (Not suicide.) Computed without branches: the
    /// answer is a coin flip in playouts, so a branch per neighbour mispredicted often.
    #[inline(always)]
    fn surrounded_saved(&self, c: Color, i: usize) -> bool {
        let ci = c as u8;
        let oi = c.opponent() as u8;
        let nb = NEIGHBOURS_PADDED[i];
        let r = nb.map(|n| self.rep_at(n));
        let m = adjacency_counts(&r);
        let mut saved = false;
        for k in 0..4 {
            // Off-board: cell 3 is neither colour.
            let cell = self.cell_at(nb[k]);
            let only_i = self.plibs(r[k]) == m[k];
            saved |= ((cell == ci) & !only_i) | ((cell == oi) & only_i);
        }
        saved
    }

    /// For an empty point `i` with no empty neighbour: may a playout of `c` play there? Not
    /// the ko point, not `c`'s own eye, not suicide. Branch-free (see
    /// [`Board::surrounded_saved`]).
    #[inline(always)]
    fn surrounded_acceptable(&self, c: Color, i: usize) -> bool {
        let eye_shape = (self.nbr[i] >> nbr_shift(c as u8)) & 0xF == 4;
        let eye = eye_shape && self.diagonals_allow_eye(c, i);
        !eye && self.ko != i as u8 && self.surrounded_saved(c, i)
    }

    // ----- unchecked reads of the hot paths ------------------------------------------------
    //
    // Bounds checks were a tenth of the playout's instructions. The indices these take are
    // at most `NN` and every array they read has `NN + 1` entries: a neighbour-table entry
    // (`NEIGHBOURS_PADDED` holds points and `OFF_BOARD` = `NN`, tested in `tables`) or a
    // `chain` entry (a point or `NO_CHAIN` = `NN`, an invariant `check_invariants` checks).

    /// `cells[n]` for a neighbour-table entry `n`.
    #[inline(always)]
    fn cell_at(&self, n: u8) -> u8 {
        debug_assert!(n as usize <= NN);
        // SAFETY: n <= NN (neighbour-table entry) and `cells` has NN + 1 entries.
        unsafe { *self.cells.get_unchecked(n as usize) }
    }

    /// Representative of the chain through the neighbour-table entry `n` (`NO_CHAIN` when
    /// `n` is empty or off the board).
    #[inline(always)]
    fn rep_at(&self, n: u8) -> usize {
        debug_assert!(n as usize <= NN);
        // SAFETY: n <= NN (neighbour-table entry) and `chain` has NN + 1 entries.
        unsafe { *self.chain.get_unchecked(n as usize) as usize }
    }

    /// Pseudo-liberties of the chain named by the `chain` entry `r` (scratch for the spare
    /// chain of empty and off-board points).
    #[inline(always)]
    fn plibs(&self, r: usize) -> u8 {
        debug_assert!(r <= NN);
        // SAFETY: `chain` entries are at most NN and `pseudo_libs` has NN + 1 entries.
        unsafe { *self.pseudo_libs.get_unchecked(r) }
    }

    /// Mutable pseudo-liberties of the chain named by the `chain` entry `r`.
    #[inline(always)]
    fn plibs_mut(&mut self, r: usize) -> &mut u8 {
        debug_assert!(r <= NN);
        // SAFETY: `r` is a `chain` entry, at most NN; `pseudo_libs` has NN + 1 entries.
        unsafe { self.pseudo_libs.get_unchecked_mut(r) }
    }

    /// Adds `delta` to the neighbour counts of the neighbour-table entry `n`.
    #[inline(always)]
    fn nbr_add(&mut self, n: u8, delta: u16) {
        debug_assert!(n as usize <= NN);
        // SAFETY: n <= NN (neighbour-table entry) and `nbr` has NN + 1 entries.
        let v = unsafe { self.nbr.get_unchecked_mut(n as usize) };
        *v = v.wrapping_add(delta);
    }

    /// Would a stone of `c` at `p` be left in atari (one liberty) without capturing?
    /// Used by the rule-based pruners and playout heuristics.
    pub fn is_self_atari(&self, c: Color, p: Point) -> bool {
        let i = p.index();
        if self.cells[i] != 0 {
            return false;
        }
        let mut after = *self;
        let captured_before = after.captures[c.idx()];
        if after.place(c, i).is_none() {
            return false;
        }
        after.captures[c.idx()] == captured_before && after.liberty_count(p) == 1
    }

    /// Same answer as [`Board::is_self_atari`] without copying the board (for pruners that
    /// ask it of every empty point). The pseudo-liberty counts settle captures and chains
    /// with many liberties; a neighbouring chain of `c` is walked only when they leave it open.
    pub fn is_self_atari_fast(&self, c: Color, p: Point) -> bool {
        let i = p.index();
        if self.cells[i] != 0 {
            return false;
        }
        let pb = bit(i);
        let ci = c as u8;
        let oi = c.opponent() as u8;
        let nb = NEIGHBOURS_PADDED[i];
        let r = nb.map(|n| self.rep_at(n));
        let m = adjacency_counts(&r);
        // the liberties of the new chain other than `p`, while there is at most one
        let mut libs = NEIGHBOUR_MASK[i] & self.empty_bits();
        if libs & libs.wrapping_sub(1) != 0 {
            return false; // two empty neighbours
        }
        for k in 0..4 {
            if self.cell_at(nb[k]) == oi && self.plibs(r[k]) == m[k] {
                return false; // captures
            }
        }
        for k in 0..4 {
            if self.cell_at(nb[k]) == ci {
                // A liberty touches at most four stones: more than four pseudo-liberties
                // besides `p` are at least two liberties.
                if self.plibs(r[k]) - m[k] > 4 {
                    return false;
                }
                libs |= self.chain_liberties(Point::new(nb[k] as usize)) & !pb;
                if libs & libs.wrapping_sub(1) != 0 {
                    return false;
                }
            }
        }
        libs != 0
    }

    // ----- moves ---------------------------------------------------------------------------

    /// Plays a stone after checking the rules; returns the number of stones captured.
    pub fn play(&mut self, c: Color, p: Point) -> Result<u32, IllegalMove> {
        self.check(c, p)?;
        Ok(self.place(c, p.index()).expect("checked move is legal"))
    }

    /// Plays a move (a pass only clears the ko point).
    pub fn play_move(&mut self, c: Color, m: Move) -> Result<u32, IllegalMove> {
        match m {
            Move::Pass => {
                self.ko = NONE;
                Ok(0)
            }
            Move::Play(p) => self.play(c, p),
        }
    }

    /// Plays a move already known to be legal (playouts test legality first).
    #[inline]
    pub fn play_legal(&mut self, c: Color, p: Point) {
        // Checked in release too: the empty-list bookkeeping relies on the point being empty.
        if self.cells[p.index()] != 0 {
            occupied_panic(p);
        }
        let placed = self.place(c, p.index());
        debug_assert!(
            placed.is_some(),
            "play_legal called with an illegal move {p}"
        );
    }

    /// Places the stone and resolves captures. Returns `None` (board unchanged) for suicide.
    /// The caller has checked that the point is empty and not the ko point.
    #[inline]
    fn place(&mut self, c: Color, i: usize) -> Option<u32> {
        if self.is_suicide(c, i) {
            return None;
        }
        Some(self.place_unchecked(c, i))
    }

    /// [`Board::place`] for a move known to be legal.
    // (always: the playout loop must get the move, the draw and the loop as one function;
    // in the full crate the compiler otherwise keeps a call here, measured 7% slower)
    #[inline(always)]
    fn place_unchecked(&mut self, c: Color, i: usize) -> u32 {
        let pb = bit(i);
        let me = c.idx();
        let ci = c as u8;
        // the new stone's own pseudo-liberties: its empty neighbours
        let own_libs = (self.nbr[i] & NBR_EMPTY) as u8;
        self.remove_empty(i);
        self.cells[i] = ci;
        self.stones[me] |= pb;
        self.hash ^= ZOBRIST[me][i];
        let delta = (1u16 << nbr_shift(ci)) - 1; // one empty neighbour becomes a `c` stone
        let oi = c.opponent() as u8;
        let nb = NEIGHBOURS_PADDED[i];

        // Pass 1, without branches (what a neighbour holds is a coin flip in playouts): the
        // neighbour counts, every neighbouring chain loses the pseudo-liberty `i` gave it (the
        // empty and off-board entries name the spare chain: scratch), and the last
        // neighbouring chain of `c` is found (the new stone joins it).
        let mut rep = i;
        let mut dead = 0u32; // bit k: neighbour k's chain is the opponent's and has no liberty
        for (k, &n) in nb.iter().enumerate() {
            self.nbr_add(n, delta);
            let r = self.rep_at(n);
            let left = self.plibs(r).wrapping_sub(1);
            *self.plibs_mut(r) = left;
            let cell = self.cell_at(n);
            // an opponent chain whose last liberty was `i` (rare: handled below)
            dead |= (((cell == oi) & (left == 0)) as u32) << k;
            rep = if cell == ci { r } else { rep };
        }

        // The new stone joins `rep` (itself when it has no neighbour of its colour).
        self.chain[i] = rep as u8;
        self.next[i] = i as u8;
        self.chain_size[i] = 0;
        self.pseudo_libs[i] = 0;
        self.next.swap(i, rep); // splice `i` into `rep`'s circle (nothing when rep == i)
        self.chain_size[rep] += 1;
        *self.plibs_mut(rep) += own_libs;

        // Other chains of `c` around `i` join `rep` too (two or more distinct chains: rare).
        let mut others = false;
        for &n in &nb {
            others |= (self.cell_at(n) == ci) & (self.rep_at(n) != rep);
        }
        if others {
            for &n in &nb {
                let r = self.rep_at(n);
                if self.cell_at(n) == ci && r != rep {
                    rep = self.merge(rep, r);
                }
            }
        }

        // Captures: opponent chains left without liberties (rare, out of line).
        self.ko = NONE;
        if dead != 0 {
            return self.capture_around(c, i, rep, dead);
        }
        0
    }

    /// Takes the opponent chains around `i` that have no liberty left off the board (bit `k`
    /// of `dead` stands for neighbour `k`'s chain); sets the ko point and the prisoner count.
    /// `rep` is the new stone's chain. Returns the number of stones captured.
    #[inline(never)]
    fn capture_around(&mut self, c: Color, i: usize, rep: usize, dead: u32) -> u32 {
        let oi = c.opponent() as u8;
        // Before the captures: was `i` surrounded by the opponent (and the edge)? Then the
        // new stone is alone and its only liberties are the points it captures.
        let in_opponent_eye = (self.nbr[i] >> nbr_shift(oi)) & 0xF == 4;
        let mut captured = 0u32;
        let mut last_captured = NONE;
        let nb = NEIGHBOURS_PADDED[i];
        let mut left = dead;
        while left != 0 {
            let n = nb[left.trailing_zeros() as usize];
            left &= left - 1;
            // (a chain met twice is gone the second time: its cells are empty)
            if self.cell_at(n) == oi {
                let r = self.rep_at(n);
                captured += self.chain_size[r] as u32;
                last_captured = r as u8; // a single-stone chain's representative is itself
                self.remove_chain(r, c);
            }
        }
        self.captures[c.idx()] += captured;
        // Simple ko: exactly one stone captured by a lone stone now in atari (one liberty:
        // the point it took).
        debug_assert!(!in_opponent_eye || self.chain_size[rep] == 1);
        if captured == 1 && in_opponent_eye {
            self.ko = last_captured;
        }
        captured
    }

    /// Joins the chains with representatives `a` and `b`: the smaller is relabelled and the
    /// stone lists are spliced. Returns the representative of the union.
    #[inline(never)]
    fn merge(&mut self, a: usize, b: usize) -> usize {
        debug_assert!(a < NN && b < NN, "merge of chains {a} and {b}: not points");
        // SAFETY: callers pass chain representatives, which are stones on the board, so
        // points (< NN). The debug check above catches a caller that breaks this in the
        // suite's debug-assertion run (`.ci/run`).
        unsafe { std::hint::assert_unchecked(a < NN && b < NN) };
        let (big, small) = if self.chain_size[a] >= self.chain_size[b] {
            (a, b)
        } else {
            (b, a)
        };
        self.chain_size[big] += self.chain_size[small];
        let mut s = small;
        loop {
            self.chain[s] = big as u8;
            s = self.next[s] as usize;
            debug_assert!(s < NN, "stone list of chain {small} reached {s}");
            // SAFETY: the stone lists link stones, which are points.
            unsafe { std::hint::assert_unchecked(s < NN) };
            if s == small {
                break;
            }
        }
        self.next.swap(big, small); // splice the two circular lists
        let libs = self.pseudo_libs[small];
        self.pseudo_libs[big] += libs;
        big
    }

    /// Lifts the captured chain with representative `rep` (of `capturer`'s opponent) off the
    /// board and gives its points back as liberties to the capturer's adjacent chains.
    #[inline(never)] // rare (a few captures per playout): keeps `place`'s loop small
    fn remove_chain(&mut self, rep: usize, capturer: Color) {
        let victim = capturer.opponent().idx();
        let delta = (1u16 << nbr_shift(capturer.opponent() as u8)) - 1;
        // (the stone mask, hash and empty count are kept in registers through the loop: the
        // compiler cannot tell that the unchecked array writes leave them alone)
        let mut removed: Bits = 0;
        let mut hash = self.hash;
        let mut k = self.n_empty as usize;
        let mut s = rep;
        loop {
            // SAFETY: stone lists link stones (points), and the empty list has room for every
            // stone taken off (k < NN while a stone is on the board).
            debug_assert!(s < NN && k < NN, "capture walk at {s}, empty count {k}");
            unsafe { std::hint::assert_unchecked(s < NN && k < NN) };
            self.cells[s] = 0;
            self.chain[s] = NO_CHAIN;
            removed |= bit(s);
            hash ^= ZOBRIST[victim][s];
            self.empty[k] = s as u8;
            self.empty_pos[s] = k as u8;
            k += 1;
            // Every neighbouring chain gains the pseudo-liberty `s`, without a branch: the
            // neighbours are the capturer's chains (which keep it), the victim's stones (a
            // dead chain's count is never read again) and empty or off-board points (the
            // spare chain: scratch).
            for &n in &NEIGHBOURS_PADDED[s] {
                self.nbr_add(n, delta.wrapping_neg());
                let r = self.rep_at(n);
                let count = self.plibs_mut(r);
                *count = count.wrapping_add(1);
            }
            s = self.next[s] as usize;
            if s == rep {
                break;
            }
        }
        self.stones[victim] &= !removed;
        self.hash = hash;
        self.n_empty = k as u8;
    }

    #[inline(always)]
    fn remove_empty(&mut self, i: usize) {
        let slot = self.empty_pos[i] as usize;
        let last = self.n_empty as usize - 1;
        // SAFETY: `i` is empty, so 1 <= n_empty <= NN; slots and empty-list entries are
        // below NN (the empty-list invariants `check_invariants` checks).
        unsafe { std::hint::assert_unchecked(slot < NN && last < NN) };
        let moved = self.empty[last];
        unsafe { std::hint::assert_unchecked((moved as usize) < NN) };
        self.empty[slot] = moved;
        self.empty_pos[moved as usize] = slot as u8;
        self.n_empty -= 1;
    }

    #[inline(always)]
    fn add_empty(&mut self, i: usize) {
        let k = self.n_empty as usize;
        self.empty[k] = i as u8;
        self.empty_pos[i] = k as u8;
        self.n_empty += 1;
    }

    /// Places setup stones (SGF `AB`/`AW`) without capture logic. Fails if the point is
    /// occupied; chains and liberties are rebuilt from scratch afterwards by the caller's
    /// last call, so prefer [`Board::setup`] for a batch.
    pub fn setup(
        &mut self,
        black: &[Point],
        white: &[Point],
        empty: &[Point],
    ) -> Result<(), String> {
        let mut cells = *self.cells();
        for p in empty {
            cells[p.index()] = 0;
        }
        for (list, v) in [(black, 1u8), (white, 2u8)] {
            for p in list {
                cells[p.index()] = v;
            }
        }
        let rebuilt = Board::from_cells(&cells, self.captures).map_err(|e| e.to_string())?;
        *self = rebuilt;
        Ok(())
    }

    /// Builds a board from the paper's 81-cell encoding, computing chains, liberties, hash and
    /// the empty list from scratch. Fails when a chain has no liberty.
    pub fn from_cells(cells: &[u8; NN], captures: [u32; 2]) -> Result<Board, CellsError> {
        let mut b = Board::new();
        b.captures = captures;
        b.n_empty = 0;
        for i in 0..NN {
            match cells[i] {
                0 => b.add_empty(i),
                v @ (1 | 2) => {
                    b.cells[i] = v;
                    for &n in &NEIGHBOURS[i][..NEIGHBOUR_COUNT[i] as usize] {
                        b.nbr[n as usize] += (1u16 << nbr_shift(v)) - 1;
                    }
                    b.stones[v as usize - 1] |= bit(i);
                    b.hash ^= ZOBRIST[v as usize - 1][i];
                }
                value => return Err(CellsError::BadCell { index: i, value }),
            }
        }
        let empty = b.empty_bits();
        for c in 0..2 {
            let mut left = b.stones[c];
            while left != 0 {
                let seed = left & left.wrapping_neg();
                let chain = flood(seed, b.stones[c]);
                left &= !chain;
                let rep = chain.trailing_zeros() as usize;
                let libs = super::tables::grow(chain) & empty;
                if libs == 0 {
                    return Err(CellsError::NoLiberties(Point::new(rep)));
                }
                let mut prev = rep;
                for s in BitIter(chain) {
                    b.chain[s] = rep as u8;
                    b.next[prev] = s as u8;
                    prev = s;
                }
                b.next[prev] = rep as u8; // close the circle (prev is the highest stone)
                b.chain_size[rep] = chain.count_ones() as u8;
                // (`nbr` is complete: every cell was read above)
                b.pseudo_libs[rep] = BitIter(chain)
                    .map(|s| (b.nbr[s] & NBR_EMPTY) as u32)
                    .sum::<u32>()
                    .try_into()
                    .map_err(|_| CellsError::PseudoLiberties(Point::new(rep)))?;
            }
        }
        Ok(b)
    }

    /// Reads a board diagram: 9 rows of `.` (empty), `X` (black), `O` (white), top row first;
    /// spaces are ignored, as are lines that hold none of these characters (labels). Letters
    /// `x`/`o` and `+` (empty) are accepted too.
    pub fn from_diagram(text: &str) -> Result<Board, String> {
        let mut cells = [0u8; NN];
        let mut row = 0;
        for line in text.lines() {
            let symbols: Vec<u8> = line
                .bytes()
                .filter_map(|b| match b {
                    b'.' | b'+' => Some(0),
                    b'X' | b'x' | b'#' => Some(1),
                    b'O' | b'o' => Some(2),
                    _ => None,
                })
                .collect();
            if symbols.is_empty() {
                continue;
            }
            if symbols.len() != 9 {
                return Err(format!(
                    "diagram row {} has {} points, expected 9",
                    row + 1,
                    symbols.len()
                ));
            }
            if row == 9 {
                return Err("diagram has more than 9 rows".into());
            }
            cells[row * 9..row * 9 + 9].copy_from_slice(&symbols);
            row += 1;
        }
        if row != 9 {
            return Err(format!("diagram has {row} rows, expected 9"));
        }
        Board::from_cells(&cells, [0, 0]).map_err(|e| e.to_string())
    }

    // ----- playouts ------------------------------------------------------------------------

    /// A uniformly random point among the empty points in `allowed` that `c` may legally play
    /// and that is not `c`'s own eye, or `None` when there is none.
    ///
    /// The O(1) draw of paper B (`docs/papers.md`) with rejection: draw a slot among the first `k`
    /// entries of the empty list; a rejected point is swapped to slot `k-1` and `k` shrinks,
    /// so each point is tried at most once and the accepted one is uniform among the
    /// acceptable. Only the order of the empty list changes.
    ///
    /// (Computing the acceptable set with masks first, [`Board::playable`], was measured
    /// slower: late in a playout most points need the per-point suicide test either way.)
    #[inline(always)] // see `place_unchecked`
    pub fn random_move(&mut self, c: Color, allowed: Bits, rng: &mut FastRng) -> Option<Point> {
        let unrestricted = allowed & BOARD == BOARD;
        let mut k = self.n_empty as usize;
        debug_assert!(k <= NN);
        while k > 0 {
            let slot = rng.below(k as u32) as usize;
            debug_assert!(slot < k);
            // SAFETY: slot < k <= n_empty <= NN = the length of `empty`.
            let i = unsafe { *self.empty.get_unchecked(slot) } as usize;
            // SAFETY: the empty list holds points (`check_invariants` checks it); telling the
            // compiler drops the bounds checks of every table lookup below.
            unsafe { std::hint::assert_unchecked(i < NN) };
            // Points in the empty list are empty: only ko, suicide and own eyes can reject,
            // and none of them can happen next to an empty point (the ko point is surrounded).
            if (unrestricted || allowed & bit(i) != 0)
                && (self.nbr[i] & NBR_EMPTY != 0 || self.surrounded_acceptable(c, i))
            {
                return Some(Point::new(i));
            }
            k -= 1;
            // move the rejected point out of the draw range
            // SAFETY: k < n_empty <= NN, and empty-list entries are points (as above).
            let other = unsafe { *self.empty.get_unchecked(k) } as usize;
            unsafe { std::hint::assert_unchecked(other < NN && slot < NN && k < NN) };
            self.empty[slot] = other as u8;
            self.empty_pos[other] = slot as u8;
            self.empty[k] = i as u8;
            self.empty_pos[i] = k as u8;
        }
        None
    }

    /// [`Board::random_move`] and, when it finds a point, plays it there: the playout's step.
    /// Skips [`Board::play_legal`]'s second suicide test (the draw has just made it).
    #[inline(always)] // see `place_unchecked`
    pub fn play_random(&mut self, c: Color, allowed: Bits, rng: &mut FastRng) -> Option<Point> {
        let p = self.random_move(c, allowed, rng)?;
        self.place_unchecked(c, p.index());
        Some(p)
    }

    /// The empty points `c` may play in a playout: legal (not ko, not suicide) and not `c`'s
    /// own eye in the sense of [`Board::is_eye`]: the exact candidate set of a light playout,
    /// for searches and pruners that need all of it. Eyes are found for all points at once
    /// with shifted masks; only points with no empty neighbour that are not eyes get the
    /// per-point suicide test.
    pub fn playable(&self, c: Color) -> Bits {
        let empty = self.empty_bits();
        let own = self.stones[c.idx()];
        let opp = self.stones[c.opponent().idx()];
        let all_own = empty & tables::all_neighbours_in(own);
        let (any_diag, two_diag) = tables::diagonal_counts(opp);
        let false_eye = two_diag | (any_diag & ON_EDGE);
        let eyes = all_own & !false_eye;
        let mut ok = empty & !eyes;
        if self.ko != NONE {
            ok &= !bit(self.ko as usize);
        }
        for i in BitIter(ok & !tables::has_neighbour_in(empty)) {
            if self.is_suicide(c, i) {
                ok &= !bit(i);
            }
        }
        ok
    }

    // ----- checking ------------------------------------------------------------------------

    /// Recomputes everything from the cells and compares it with the incremental state.
    /// Returns a description of the first difference. Used by the property tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        let fresh = Board::from_cells(self.cells(), self.captures).map_err(|e| e.to_string())?;
        if fresh.hash != self.hash {
            return Err("hash differs from recomputation".into());
        }
        if fresh.stones != self.stones {
            return Err("stone masks differ".into());
        }
        if self.cells[NN] != OFF_BOARD_CELL || self.chain[NN] != NO_CHAIN {
            return Err("the off-board slot was written".into());
        }
        if let Some(i) = (0..NN).find(|&i| self.chain[i] as usize > NN) {
            return Err(format!("chain entry of {} is out of range", Point::new(i)));
        }
        if let Some(i) = (0..NN).find(|&i| fresh.nbr[i] != self.nbr[i]) {
            return Err(format!("neighbour counts of {} differ", Point::new(i)));
        }
        let empties = self.empty_bits();
        if fresh.n_empty != self.n_empty {
            return Err(format!("empty count {} != {}", self.n_empty, fresh.n_empty));
        }
        let mut listed = 0u128;
        for (slot, &p) in self.empty_points().iter().enumerate() {
            if self.empty_pos[p as usize] as usize != slot {
                return Err(format!("empty_pos of {} is wrong", Point::new(p as usize)));
            }
            listed |= bit(p as usize);
        }
        if listed != empties {
            return Err("empty list does not match the empty points".into());
        }
        for i in 0..NN {
            let p = Point::new(i);
            if self.cells[i] == 0 {
                if self.chain[i] != NO_CHAIN {
                    return Err(format!("empty point {p} has a chain"));
                }
                continue;
            }
            if self.chain_stones(p) != fresh.chain_stones(p) {
                return Err(format!("chain stones at {p} differ"));
            }
            if self.chain_liberties(p) != fresh.chain_liberties(p) {
                return Err(format!("liberties at {p} differ"));
            }
            let rep = self.chain[i] as usize;
            if self.chain_size[rep] as u32 != self.chain_stones(p).count_ones() {
                return Err(format!("chain size at {p} is wrong"));
            }
            if self.chain_stones(p) & bit(rep) == 0 {
                return Err(format!("representative of {p} is not in its chain"));
            }
            let fresh_rep = fresh.chain[i] as usize;
            if self.pseudo_libs[rep] != fresh.pseudo_libs[fresh_rep] {
                return Err(format!(
                    "pseudo-liberties at {p}: {} != {}",
                    self.pseudo_libs[rep], fresh.pseudo_libs[fresh_rep]
                ));
            }
        }
        Ok(())
    }
}

impl fmt::Display for Board {
    /// Diagram with GTP coordinates: `X` black, `O` white, `.` empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "   A B C D E F G H J")?;
        for r in 0..9 {
            write!(f, "{} ", 9 - r)?;
            for c in 0..9 {
                let ch = match self.cells[r * 9 + c] {
                    1 => 'X',
                    2 => 'O',
                    _ => '.',
                };
                write!(f, " {ch}")?;
            }
            writeln!(f, "  {}", 9 - r)?;
        }
        write!(f, "   A B C D E F G H J")
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{self}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions along a few random games (every 10th move), with the side to move.
    fn sample_positions() -> Vec<(Board, Color)> {
        let mut out = Vec::new();
        for seed in 0..6 {
            let mut rng = FastRng::new(seed);
            let mut board = Board::new();
            let mut color = Color::Black;
            for ply in 0..150 {
                if ply % 10 == 0 {
                    out.push((board, color));
                }
                if let Some(p) = board.random_move(color, BOARD, &mut rng) {
                    board.play_legal(color, p);
                }
                color = color.opponent();
            }
        }
        out
    }

    #[test]
    fn low_liberty_chains_keeps_every_short_chain_and_only_representatives() {
        let mut seen_atari = 0;
        for (b, _) in sample_positions() {
            for max in [0u8, 1, 4, 8, 200] {
                let fast = b.low_liberty_chains(max);
                assert_eq!(fast, b.chains_where_scalar(0, max, 0), "max {max}");
                for i in BitIter(b.stones(Color::Black) | b.stones(Color::White)) {
                    let p = Point::new(i);
                    let is_rep = b.chain_id(p) == Some(p);
                    let libs = b.liberty_count(p);
                    if !is_rep {
                        assert_eq!(fast & bit(i), 0, "{p} is no representative");
                    } else if libs * 4 <= max as u32 {
                        // n liberties are at most 4n pseudo-liberties
                        assert_ne!(fast & bit(i), 0, "{p}: {libs} liberties, max {max}");
                    }
                }
                assert_eq!(fast & b.empty_bits(), 0);
            }
            for (lo, hi, size) in [(1, 1, 0), (2, 4, 2), (0, 8, 0), (3, 200, 5)] {
                assert_eq!(
                    b.chains_where(lo, hi, size),
                    b.chains_where_scalar(lo, hi, size),
                    "{lo}..={hi}, {size} stones"
                );
            }
            let atari = b.atari_chains().count_ones() as usize;
            let want = b
                .each_chain(b.stones(Color::Black) | b.stones(Color::White))
                .filter(|&q| b.liberty_count(q) == 1)
                .count();
            assert_eq!(atari, want);
            seen_atari += want;
        }
        assert!(seen_atari > 5, "only {seen_atari} chains in atari sampled");
    }

    #[test]
    fn chain_reps_is_the_set_of_each_chain() {
        for (b, _) in sample_positions() {
            let stones = b.stones(Color::Black) | b.stones(Color::White);
            for area in [stones, stones & 0x1FF_FFFF, b.stones(Color::White)] {
                let want = b.each_chain(area).fold(0, |m, r| m | bit(r.index()));
                assert_eq!(b.chain_reps(area | b.empty_bits()), want);
            }
        }
    }

    /// Draws `draws` moves from `board` and returns how often each point came up.
    fn draw_counts(board: &Board, c: Color, allowed: Bits, draws: usize) -> [u32; NN] {
        let mut b = *board;
        let mut rng = FastRng::new(99);
        let mut counts = [0u32; NN];
        for _ in 0..draws {
            let p = b.random_move(c, allowed, &mut rng).expect("a move exists");
            counts[p.index()] += 1;
        }
        counts
    }

    #[test]
    fn random_move_is_uniform_over_the_playable_points() {
        let mut tested = 0;
        for (board, c) in sample_positions() {
            for allowed in [BOARD, BOARD & !ON_EDGE] {
                let expected = board.playable(c) & allowed;
                let n = expected.count_ones() as usize;
                if n == 0 {
                    let mut b = board;
                    let mut rng = FastRng::new(1);
                    assert_eq!(b.random_move(c, allowed, &mut rng), None);
                    continue;
                }
                let per_point = 400;
                let counts = draw_counts(&board, c, allowed, per_point * n);
                let mut support = 0u128;
                let mut chi2 = 0.0;
                for (i, &k) in counts.iter().enumerate() {
                    if k > 0 {
                        support |= bit(i);
                    }
                    if expected & bit(i) != 0 {
                        let d = k as f64 - per_point as f64;
                        chi2 += d * d / per_point as f64;
                    }
                }
                assert_eq!(
                    support, expected,
                    "support differs from playable()\n{board}"
                );
                // chi-square with n-1 degrees of freedom: mean n-1, sd sqrt(2(n-1)); six sd
                let df = (n - 1) as f64;
                assert!(
                    chi2 <= df + 6.0 * (2.0 * df).sqrt() + 6.0,
                    "chi2 {chi2:.1} with {n} points\n{board}"
                );
                // the draws reorder the empty list but never change the position
                tested += 1;
            }
        }
        assert!(tested > 20, "only {tested} positions had moves");
    }

    #[test]
    fn eyes_false_eyes_and_suicide_points_are_rejected_exactly() {
        // A real black eye in the top-left corner, a black eye shape spoiled by four white
        // diagonals in the centre, and two white eyes where black would commit suicide.
        let board = Board::from_diagram(
            ". X . . . . . . .
             X X . . . . . . .
             . . . . . . . . .
             . . . O X O . . .
             . . . X . X . . .
             . . . O X O . . .
             . . . . . . O O O
             . . . . . . O . O
             . . . . . . O O .",
        )
        .unwrap();
        let at = |r, c| Point::from_rc(r, c).unwrap();
        let (a1, e5, h1, j1) = (at(0, 0), at(4, 4), at(7, 7), at(8, 8));
        assert!(board.is_eye(Color::Black, a1));
        assert!(
            !board.is_eye(Color::Black, e5),
            "white diagonals make it false"
        );
        assert!(
            !board.is_legal(Color::Black, h1),
            "suicide inside white's eye"
        );
        assert!(
            !board.is_legal(Color::Black, j1),
            "suicide in white's corner eye"
        );
        let playable = board.playable(Color::Black);
        for p in [a1, h1, j1] {
            assert_eq!(playable & bit(p.index()), 0, "{p} is playable");
        }
        assert_ne!(playable & bit(e5.index()), 0, "the false eye is playable");
        let counts = draw_counts(&board, Color::Black, BOARD, 20_000);
        for p in [a1, h1, j1] {
            assert_eq!(counts[p.index()], 0, "{p} was drawn");
        }
        assert!(counts[e5.index()] > 0, "the false eye was never drawn");
    }
}
