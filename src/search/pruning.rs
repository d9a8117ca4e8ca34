//! How the search uses a pruner's scores: the score cache, tree pruning (drop the x worst
//! candidates), soft pruning (negative priors) and playout pruning (forbid the worst share of
//! the empty points), the last in two evaluation modes.
//!
//! Everything here works with any `Arc<dyn Pruner>`. Pruners are called only through
//! [`PrunerSlot`], which gives them the position's last two moves (the history a network's
//! planes were trained on) and caches their scores by position (stones hash, side to move,
//! ko point, and the last two moves for a pruner that reads them), so a position the search
//! meets again (a tree leaf that gets several playouts, a reused subtree) costs one lookup.

use std::sync::Arc;

use crate::playout::PlayoutPolicy;
pub use crate::prune::sort_worst_first;
use crate::prune::{
    LastMoves, NO_LAST_MOVES, PruneContext, Pruner, cmp_worst_first, last_move_code,
    recent_from_last,
};
use crate::rules::tables::{ZOBRIST_KO, ZOBRIST_WHITE_TO_MOVE};
use crate::rules::{BOARD, BitIter, Bits, Board, Color, Move, NN, Point, bit};
use crate::util::rng::{FastRng, mix64};

/// What `x` counts in tree pruning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PruneCount {
    /// Drop the x worst candidate moves (occupied points never count): the reading.
    #[default]
    Legal,
    /// Keep the 81 - x best candidates, as when the paper sorts all 81 outputs and its network
    /// rates every occupied point worst (paper A in `docs/papers.md`: p0..p(80-x) kept).
    Board,
}

/// When playout pruning asks the pruner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayoutEval {
    /// Once at the tree leaf (for both colours, cached), reused for the whole playout: the
    /// forbidden points are fixed when the playout starts.
    #[default]
    Leaf,
    /// Before every playout move, on the current playout position (no cache: playout
    /// positions rarely repeat).
    Move,
}

/// Hash key of (position, side to move, ko point), never 0 (0 marks an empty cache slot).
#[inline]
pub fn position_key(board: &Board, to_move: Color) -> u64 {
    let mut k = board.hash();
    if to_move == Color::White {
        k ^= ZOBRIST_WHITE_TO_MOVE;
    }
    if let Some(p) = board.ko_point() {
        k ^= ZOBRIST_KO[p.index()];
    }
    k | 1
}

/// [`position_key`] with the last two moves mixed in: the key of a pruner that reads them.
#[inline]
pub fn history_key(board: &Board, to_move: Color, last: LastMoves) -> u64 {
    let moves = 0x1157_0000 | (last[0] as u64) << 8 | last[1] as u64;
    (position_key(board, to_move) ^ mix64(moves)) | 1
}

/// A pruner with a direct-mapped cache of its scores (allocated on first use).
pub struct PrunerSlot {
    pub pruner: Arc<dyn Pruner>,
    /// Whether the pruner reads the last moves, so that they belong in the cache key.
    reads_history: bool,
    /// Whether the search reads this pruner's win probability (its value head): only then
    /// does an evaluation compute it.
    wants_value: bool,
    entries: usize,
    keys: Vec<u64>,
    scores: Vec<[f32; NN]>,
    /// The win probability of each cached position's side to move (NaN: none).
    values: Vec<f32>,
    /// Pruner calls made (cache misses).
    pub evals: u64,
    /// Lookups answered from the cache.
    pub hits: u64,
}

impl PrunerSlot {
    /// `entries` is rounded up to a power of two (at least 1).
    pub fn new(pruner: Arc<dyn Pruner>, entries: usize) -> PrunerSlot {
        PrunerSlot {
            reads_history: pruner.reads_history(),
            wants_value: false,
            pruner,
            entries: entries.max(1).next_power_of_two(),
            keys: Vec::new(),
            scores: Vec::new(),
            values: Vec::new(),
            evals: 0,
            hits: 0,
        }
    }

    /// This slot with the pruner's win probability computed at every evaluation, for
    /// [`value`](Self::value); a pruner without a value head has none to give.
    pub fn with_value(mut self) -> PrunerSlot {
        self.wants_value = self.pruner.has_value();
        self
    }

    /// The cache key of `board` with `to_move` to play after `last`.
    #[inline]
    pub fn key(&self, board: &Board, to_move: Color, last: LastMoves) -> u64 {
        if self.reads_history {
            history_key(board, to_move, last)
        } else {
            position_key(board, to_move)
        }
    }

    /// The pruner's scores for `board` with `to_move` to play after the moves `last`, from
    /// the cache when present.
    pub fn scores(&mut self, board: &Board, to_move: Color, last: LastMoves) -> &[f32; NN] {
        let slot = self.lookup(board, to_move, last, true);
        &self.scores[slot]
    }

    /// The side to move's win probability from the pruner's value head (from the cache, or
    /// evaluated with the scores); `None` for a pruner without one or a slot made without
    /// [`with_value`](Self::with_value). The search asks right after the scores of the same
    /// position, so a cached answer is not counted as a hit.
    pub fn value(&mut self, board: &Board, to_move: Color, last: LastMoves) -> Option<f32> {
        if !self.wants_value {
            return None;
        }
        let slot = self.lookup(board, to_move, last, false);
        Some(self.values[slot]).filter(|v| !v.is_nan())
    }

    /// The cache slot holding `board`'s scores (and value), evaluated on a miss; a hit is
    /// counted when `count_hit`.
    fn lookup(&mut self, board: &Board, to_move: Color, last: LastMoves, count_hit: bool) -> usize {
        if self.keys.is_empty() {
            self.keys = vec![0; self.entries];
            self.scores = vec![[0.0; NN]; self.entries];
            self.values = vec![f32::NAN; self.entries];
        }
        let key = self.key(board, to_move, last);
        let slot = (key >> 7) as usize & (self.entries - 1);
        if self.keys[slot] == key {
            self.hits += u64::from(count_hit);
        } else {
            let out = &mut self.scores[slot];
            self.values[slot] = if self.wants_value {
                rate_value(&*self.pruner, board, to_move, last, out).unwrap_or(f32::NAN)
            } else {
                rate(&*self.pruner, board, to_move, last, out);
                f32::NAN
            };
            self.keys[slot] = key;
            self.evals += 1;
        }
        slot
    }

    /// The cached scores of `board` with `to_move` to play after `last`, if the cache holds
    /// them (what the search rated, for tests and diagnostics; counts nothing).
    pub fn cached(&self, board: &Board, to_move: Color, last: LastMoves) -> Option<&[f32; NN]> {
        let key = self.key(board, to_move, last);
        let slot = (key >> 7) as usize & (self.entries - 1);
        (self.keys.get(slot) == Some(&key)).then(|| &self.scores[slot])
    }

    /// Scores without the cache (playout pruning every move).
    pub fn scores_uncached(
        &mut self,
        board: &Board,
        to_move: Color,
        last: LastMoves,
        out: &mut [f32; NN],
    ) {
        rate(&*self.pruner, board, to_move, last, out);
        self.evals += 1;
    }
}

/// The last moves a pruner is given: `last`, or none where the engine's `history` setting
/// is off (the presets recorded before it existed). The tree and GTP's view of the root both
/// ask here, so they cannot disagree.
#[inline]
pub fn given_last(history: bool, last: LastMoves) -> LastMoves {
    if history { last } else { NO_LAST_MOVES }
}

/// `pruner`'s scores for `board` with `to_move` to play after `last`: the one way the search
/// (and GTP's view of it) builds a pruner's context.
pub fn rate(
    pruner: &dyn Pruner,
    board: &Board,
    to_move: Color,
    last: LastMoves,
    out: &mut [f32; NN],
) {
    with_context(board, to_move, last, |ctx| pruner.badness(ctx, out));
}

/// [`rate`], and the win probability of a pruner that has one (one evaluation).
pub fn rate_value(
    pruner: &dyn Pruner,
    board: &Board,
    to_move: Color,
    last: LastMoves,
    out: &mut [f32; NN],
) -> Option<f32> {
    with_context(board, to_move, last, |ctx| pruner.badness_value(ctx, out))
}

/// Runs `f` on the context of `board` with `to_move` to play after `last`.
fn with_context<T>(
    board: &Board,
    to_move: Color,
    last: LastMoves,
    f: impl FnOnce(&PruneContext<'_>) -> T,
) -> T {
    let mut buf = [Move::Pass; 2];
    f(&PruneContext {
        board,
        to_move,
        recent: recent_from_last(last, &mut buf),
    })
}

/// `pruner`'s ownership head for `board` with `to_move` to play after `last` (each point's
/// expected owner from `to_move`'s view), where it has one.
pub fn owners(
    pruner: &dyn Pruner,
    board: &Board,
    to_move: Color,
    last: LastMoves,
) -> Option<[f32; NN]> {
    with_context(board, to_move, last, |ctx| pruner.ownership(ctx))
}

/// `pruner`'s score head for `board` with `to_move` to play after `last` (the lead in
/// points from `to_move`'s view, at the komi its labels assumed), where it has one.
pub fn score_lead(
    pruner: &dyn Pruner,
    board: &Board,
    to_move: Color,
    last: LastMoves,
) -> Option<f32> {
    with_context(board, to_move, last, |ctx| pruner.score_lead(ctx))
}

/// How many of `n` candidates tree pruning drops for `x`, never leaving fewer than
/// `keep_min` (nor more than `n`). Pass is not a candidate: it is always kept.
#[inline]
pub fn drop_count(n: usize, x: usize, count: PruneCount, keep_min: usize) -> usize {
    let wanted = match count {
        PruneCount::Legal => x,
        PruneCount::Board => n.saturating_sub(NN.saturating_sub(x)),
    };
    wanted.min(n.saturating_sub(keep_min.min(n)))
}

/// The candidates (flat indices, any order) that tree pruning drops: the `drop` worst.
pub fn worst_mask(candidates: &[u8], scores: &[f32; NN], drop: usize) -> Bits {
    if drop == 0 {
        return 0;
    }
    let mut sorted = [0u8; NN];
    let n = candidates.len();
    sorted[..n].copy_from_slice(candidates);
    sort_worst_first(&mut sorted[..n], scores);
    sorted[..drop.min(n)]
        .iter()
        .fold(0, |m, &p| m | bit(p as usize))
}

/// The worst `share` of the empty points of `board` (rounded down) as a mask.
pub fn worst_share_mask(board: &Board, scores: &[f32; NN], share: f32) -> Bits {
    let empty = board.empty_bits();
    let n = empty.count_ones() as usize;
    let k = ((share.clamp(0.0, 1.0) * n as f32) as usize).min(n);
    if k == 0 {
        return 0;
    }
    let mut pts = [0u8; NN];
    for (j, i) in BitIter(empty).enumerate() {
        pts[j] = i as u8;
    }
    // Only the set of the k worst matters, not their order: a linear-time selection.
    if k < n {
        pts[..n]
            .select_nth_unstable_by(k, |&a, &b| cmp_worst_first(scores, a as usize, b as usize));
    }
    pts[..k].iter().fold(0, |m, &p| m | bit(p as usize))
}

/// A random playout move inside `allowed` (uniform among the allowed empty points that are
/// legal and not the mover's own eye); when there is none, a random move anywhere (so
/// playouts end). With nothing forbidden it is exactly the unpruned playout's draw (same
/// random numbers), so share 0 replays the unpruned search.
///
/// The allowed points are drawn from the bit mask directly rather than by rejection from the
/// board's empty list: late in a playout most empty points are forbidden, and rejecting them
/// one draw at a time doubled the cost of a pruned playout.
#[inline]
pub fn masked_move(
    board: &mut Board,
    color: Color,
    allowed: Bits,
    rng: &mut FastRng,
) -> Option<Point> {
    let empty = board.empty_bits();
    if empty & !allowed == 0 {
        return board.random_move(color, BOARD, rng);
    }
    let mut cand = empty & allowed;
    while cand != 0 {
        let i = nth_set_bit(cand, rng.below(cand.count_ones()));
        let p = Point::new(i);
        if board.is_candidate(color, p) {
            return Some(p);
        }
        cand &= !bit(i);
    }
    board.random_move(color, BOARD, rng)
}

/// Index of the `r`-th set bit (from 0, lowest first) of `m`; `r` must be below its count.
#[inline]
fn nth_set_bit(m: Bits, r: u32) -> usize {
    let lo = m as u64;
    let lo_count = lo.count_ones();
    let (mut x, mut r, base) = if r < lo_count {
        (lo, r, 0)
    } else {
        ((m >> 64) as u64, r - lo_count, 64)
    };
    while r > 0 {
        x &= x - 1;
        r -= 1;
    }
    base + x.trailing_zeros() as usize
}

/// Playout policy for [`PlayoutEval::Leaf`]: each colour avoids its own forbidden set, fixed
/// at the leaf; when no allowed move is left it falls back to every point, so playouts end.
#[derive(Debug, Clone, Copy)]
pub struct LeafMasked {
    /// Allowed points for black (index 0) and white (index 1).
    pub allowed: [Bits; 2],
}

impl PlayoutPolicy for LeafMasked {
    #[inline]
    fn choose(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point> {
        masked_move(board, color, self.allowed[color.idx()], rng)
    }
}

/// Playout policy for [`PlayoutEval::Move`]: asks the pruner before every move and forbids
/// the worst `share` of the current empty points (falling back to every point when nothing
/// allowed is playable). It keeps the playout's own last two moves, so the pruner sees the
/// history a game would give it.
pub struct EveryMove<'a> {
    pub slot: &'a mut PrunerSlot,
    pub share: f32,
    last: LastMoves,
    scores: [f32; NN],
}

impl<'a> EveryMove<'a> {
    /// `last`: the moves before the playout's first position.
    pub fn new(slot: &'a mut PrunerSlot, share: f32, last: LastMoves) -> EveryMove<'a> {
        EveryMove {
            slot,
            share,
            last,
            scores: [0.0; NN],
        }
    }
}

impl PlayoutPolicy for EveryMove<'_> {
    fn choose(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point> {
        self.slot
            .scores_uncached(board, color, self.last, &mut self.scores);
        let forbidden = worst_share_mask(board, &self.scores, self.share);
        let chosen = masked_move(board, color, BOARD & !forbidden, rng);
        self.last = [
            last_move_code(chosen.map_or(Move::Pass, Move::Play)),
            self.last[0],
        ];
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prune::NO_LAST_MOVES;
    use crate::prune::rules::RulePruner;
    use crate::rules::PASS_INDEX;

    #[test]
    fn nth_set_bit_walks_both_halves() {
        let m: Bits = bit(3) | bit(40) | bit(63) | bit(64) | bit(80);
        let got: Vec<usize> = (0..5).map(|r| nth_set_bit(m, r)).collect();
        assert_eq!(got, vec![3, 40, 63, 64, 80]);
    }

    #[test]
    fn masked_move_stays_inside_the_mask_and_is_uniform() {
        let mut b = Board::new();
        let allowed: Bits = bit(10) | bit(20) | bit(70);
        let mut rng = FastRng::new(5);
        let mut counts = [0u32; 3];
        for _ in 0..3000 {
            let p = masked_move(&mut b, Color::Black, allowed, &mut rng).unwrap();
            counts[[10, 20, 70].iter().position(|&i| i == p.index()).unwrap()] += 1;
        }
        assert!(
            counts.iter().all(|&c| (900..1100).contains(&c)),
            "{counts:?}"
        );
        // Nothing allowed is playable: any legal point is chosen instead.
        b.play(Color::Black, Point::new(10)).unwrap();
        let p = masked_move(&mut b, Color::White, bit(10), &mut rng).unwrap();
        assert_ne!(p.index(), 10);
    }

    #[test]
    fn drop_count_keeps_minimum_and_counts_modes() {
        assert_eq!(drop_count(81, 41, PruneCount::Legal, 1), 41);
        assert_eq!(drop_count(20, 41, PruneCount::Legal, 1), 19);
        assert_eq!(drop_count(20, 41, PruneCount::Legal, 0), 20);
        assert_eq!(drop_count(81, 41, PruneCount::Board, 1), 41);
        // 50 candidates, keep the 40 best: drop 10.
        assert_eq!(drop_count(50, 41, PruneCount::Board, 1), 10);
        assert_eq!(drop_count(30, 41, PruneCount::Board, 1), 0);
        assert_eq!(drop_count(0, 41, PruneCount::Legal, 1), 0);
    }

    #[test]
    fn share_mask_takes_worst_empty_points_only() {
        let mut b = Board::new();
        b.play(Color::Black, Point::new(0)).unwrap();
        let mut scores = [0f32; NN];
        for (i, s) in scores.iter_mut().enumerate() {
            *s = i as f32; // higher index = worse; point 0 (occupied) would be best anyway
        }
        scores[0] = 1000.0; // occupied: must never be picked
        let m = worst_share_mask(&b, &scores, 0.6);
        assert_eq!(m.count_ones(), 48); // floor(0.6 * 80)
        assert_eq!(m & bit(0), 0);
        assert_ne!(m & bit(80), 0);
        assert_eq!(m & bit(1), 0);
    }

    /// Writes what it was given into its scores: the ko point, then the recent moves.
    struct Echo {
        history: bool,
    }

    impl Pruner for Echo {
        fn name(&self) -> String {
            "echo".into()
        }
        fn reads_history(&self) -> bool {
            self.history
        }
        fn badness(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]) {
            out.fill(-1.0);
            out[0] = ctx.board.ko_point().map_or(-1.0, |p| p.index() as f32);
            if self.history {
                for (o, m) in out[1..].iter_mut().zip(ctx.recent) {
                    *o = m.index() as f32;
                }
            }
        }
    }

    /// A simple ko: black has just taken at C8, so white may not retake at B8 at once.
    fn ko_board() -> Board {
        let mut b = Board::from_diagram(
            ".XO......\nXO.O.....\n.XO......\n.........\n.........\n.........\n.........\n.........\n.........",
        )
        .unwrap();
        b.play(Color::Black, Point::new(11)).unwrap();
        b
    }

    #[test]
    fn cache_tells_ko_points_apart() {
        let ko = ko_board();
        assert_eq!(ko.ko_point(), Some(Point::new(10)));
        let same_stones = Board::from_cells(ko.cells(), [0, 0]).unwrap();
        assert_eq!(same_stones.ko_point(), None);
        assert_eq!(same_stones.hash(), ko.hash());
        let mut slot = PrunerSlot::new(Arc::new(Echo { history: false }), 1);
        assert_eq!(slot.scores(&ko, Color::White, NO_LAST_MOVES)[0], 10.0);
        // One cache entry: the position without the ko must miss and be rated again.
        assert_eq!(
            slot.scores(&same_stones, Color::White, NO_LAST_MOVES)[0],
            -1.0
        );
        assert_eq!((slot.evals, slot.hits), (2, 0));
    }

    #[test]
    fn cache_keys_by_last_moves_only_for_pruners_that_read_them() {
        let b = ko_board();
        let (one, other) = ([11, 10], [11, PASS_INDEX as u8]);
        let mut reader = PrunerSlot::new(Arc::new(Echo { history: true }), 1);
        let s = *reader.scores(&b, Color::White, one);
        // Oldest first in the context: 10 (B8) then 11 (C8).
        assert_eq!(s[1..3], [10.0, 11.0]);
        let s = *reader.scores(&b, Color::White, other);
        assert_eq!(s[1..3], [81.0, 11.0]);
        assert_eq!(reader.scores(&b, Color::White, NO_LAST_MOVES)[1], -1.0);
        assert_eq!(reader.evals, 3);
        assert!(reader.cached(&b, Color::White, NO_LAST_MOVES).is_some());
        assert!(reader.cached(&b, Color::White, one).is_none());
        // A pruner that ignores history shares one entry across histories.
        let mut blind = PrunerSlot::new(Arc::new(Echo { history: false }), 1);
        blind.scores(&b, Color::White, one);
        blind.scores(&b, Color::White, other);
        assert_eq!((blind.evals, blind.hits), (1, 1));
    }

    #[test]
    fn cache_hits_same_position_and_separates_colours() {
        let mut slot = PrunerSlot::new(Arc::new(RulePruner::default()), 16);
        let b = Board::new();
        let a = *slot.scores(&b, Color::Black, NO_LAST_MOVES);
        let again = *slot.scores(&b, Color::Black, NO_LAST_MOVES);
        assert_eq!(a, again);
        assert_eq!((slot.evals, slot.hits), (1, 1));
        slot.scores(&b, Color::White, NO_LAST_MOVES);
        assert_eq!(slot.evals, 2);
        assert_ne!(
            position_key(&b, Color::Black),
            position_key(&b, Color::White)
        );
    }
}
