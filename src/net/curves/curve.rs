//! The pruning error-rate curve (paper A in `docs/papers.md`, their Fig. 2) and top-k accuracy.
//!
//! For each evaluation position the points are sorted worst first by a scorer's badness
//! ([`cmp_worst_first`]: ties broken by the lower flat index); pruning
//! `x` removes the first `x`. An error is a position whose played move is among them.
//! Two forms: the paper's ranks all 81 points; the honest one ranks only the legal moves
//! (occupied points are trivially bad, so ranking them inflates the curve).

use crate::dataset::Position;
use crate::net::inference::encode::NetInput;
use crate::net::inference::scorer::PositionScorer;
use crate::prune::cmp_worst_first;
use crate::rules::NN;
use rayon::prelude::*;

/// Rank histograms from which every point of the curve and every top-k follows.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// Positions counted (pass moves are skipped).
    pub n: u64,
    /// Positions skipped because the recorded move was a pass.
    pub passes: u64,
    /// `all[r]`: positions whose played move was `r`-th worst among all 81 points.
    pub all: [u64; NN],
    /// `legal[r]`: positions whose played move was `r`-th worst among the legal moves.
    pub legal: [u64; NN],
    /// `best[r]`: positions whose played move was `r`-th best among the legal moves.
    pub best: [u64; NN],
}

impl Default for Curve {
    fn default() -> Self {
        Curve {
            n: 0,
            passes: 0,
            all: [0; NN],
            legal: [0; NN],
            best: [0; NN],
        }
    }
}

/// Position of `played` in the worst-first order of `scores` ([`cmp_worst_first`]) over the
/// points `keep` accepts.
fn worst_rank(scores: &[f32; NN], played: usize, keep: impl Fn(usize) -> bool) -> usize {
    (0..NN)
        .filter(|&q| q != played && keep(q))
        .filter(|&q| cmp_worst_first(scores, q, played) == std::cmp::Ordering::Less)
        .count()
}

/// Where one position's played move stands in a scorer's ranking: what [`Curve`] counts,
/// kept per position for breakdowns and exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveRanks {
    /// Place in the worst-first order of all 81 points: 0 = rated worst; pruning `x` points
    /// (paper form) loses the move when `all < x`.
    pub all: u8,
    /// Place in the worst-first order of the legal moves (0 = rated worst legal move).
    pub legal: u8,
    /// Place in the best-first order of the legal moves: 0 = the scorer's top-1.
    pub best: u8,
    /// Legal moves in the position.
    pub legal_count: u8,
    /// The legal point rated best (the last in worst-first order), 81 when none is legal.
    pub top1: u8,
}

/// Ranks the recorded move `played` (81 = pass: `None`) by `scores` (badness) over all
/// points and over the `legal` ones; the one rule [`Curve::add`] counts by.
pub fn rank_move(scores: &[f32; NN], legal: &[bool; NN], played: usize) -> Option<MoveRanks> {
    if played >= NN {
        return None;
    }
    let all = worst_rank(scores, played, |_| true);
    let r = worst_rank(scores, played, |q| legal[q]);
    // A recorded move the mask calls illegal still gets a place among the legal ones.
    let count = legal.iter().filter(|&&l| l).count().max(r + 1);
    let top1 = (0..NN)
        .filter(|&q| legal[q])
        .max_by(|&a, &b| cmp_worst_first(scores, a, b))
        .unwrap_or(NN);
    Some(MoveRanks {
        all: all as u8,
        legal: r as u8,
        best: (count - 1 - r) as u8,
        legal_count: count as u8,
        top1: top1 as u8,
    })
}

impl Curve {
    /// Counts one position: `scores` are badness (higher = worse), `legal` the legal moves,
    /// `played` the recorded move (81 = pass, skipped).
    pub fn add(&mut self, scores: &[f32; NN], legal: &[bool; NN], played: usize) {
        self.add_ranks(rank_move(scores, legal, played).as_ref());
    }

    /// Counts one position already ranked by [`rank_move`] (`None`: a pass, skipped).
    pub fn add_ranks(&mut self, ranks: Option<&MoveRanks>) {
        let Some(r) = ranks else {
            self.passes += 1;
            return;
        };
        self.n += 1;
        self.all[r.all as usize] += 1;
        self.legal[r.legal as usize] += 1;
        self.best[r.best as usize] += 1;
    }

    /// The curve of positions ranked one by one: equal to [`evaluate`] over them.
    pub fn from_ranks<'a>(ranks: impl IntoIterator<Item = Option<&'a MoveRanks>>) -> Curve {
        let mut c = Curve::default();
        for r in ranks {
            c.add_ranks(r);
        }
        c
    }

    /// Adds another curve's counts.
    pub fn merge(&mut self, o: &Curve) {
        self.n += o.n;
        self.passes += o.passes;
        for i in 0..NN {
            self.all[i] += o.all[i];
            self.legal[i] += o.legal[i];
            self.best[i] += o.best[i];
        }
    }

    fn share_below(&self, hist: &[u64; NN], x: usize) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        hist[..x.min(NN)].iter().sum::<u64>() as f64 / self.n as f64
    }

    /// Paper form: error rate when the `x` worst of all 81 points are pruned.
    pub fn error_all(&self, x: usize) -> f64 {
        self.share_below(&self.all, x)
    }

    /// Honest form: error rate when the `x` worst legal moves are pruned.
    pub fn error_legal(&self, x: usize) -> f64 {
        self.share_below(&self.legal, x)
    }

    /// Share of positions whose played move is among the `k` best-rated legal moves.
    pub fn top_k(&self, k: usize) -> f64 {
        self.share_below(&self.best, k)
    }

    /// The largest `x` (0..=80) whose error stays at or below `limit` (errors only grow with x).
    pub fn largest_x_within(&self, limit: f64, legal_form: bool) -> usize {
        (0..NN)
            .take_while(|&x| {
                let e = if legal_form {
                    self.error_legal(x)
                } else {
                    self.error_all(x)
                };
                e <= limit
            })
            .last()
            .unwrap_or(0)
    }
}

/// The curve of `scorer` over `positions` (in parallel; the result does not depend on the
/// thread count). `on_chunk` is called with the number of positions done per chunk.
pub fn evaluate(
    scorer: &dyn PositionScorer,
    positions: &[Position],
    on_chunk: &(dyn Fn(u64) + Sync),
) -> Curve {
    Curve::from_ranks(
        rank_each(scorer, positions, on_chunk)
            .iter()
            .map(Option::as_ref),
    )
}

/// Every position's [`MoveRanks`] under `scorer`, in the order of `positions` (`None` for a
/// pass); [`evaluate`] counts these.
pub fn rank_each(
    scorer: &dyn PositionScorer,
    positions: &[Position],
    on_chunk: &(dyn Fn(u64) + Sync),
) -> Vec<Option<MoveRanks>> {
    let chunks: Vec<Vec<Option<MoveRanks>>> = positions
        .par_chunks(2048)
        .map(|chunk| {
            let mut scores = [0f32; NN];
            let out = chunk
                .iter()
                .map(|pos| {
                    let board = pos.board();
                    scorer.score(pos, &board, &mut scores);
                    let legal = NetInput::from_position(pos, &board).legal_mask();
                    rank_move(&scores, &legal, pos.played as usize)
                })
                .collect();
            on_chunk(chunk.len() as u64);
            out
        })
        .collect();
    chunks.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked: three positions on a board where only points 0..4 are legal.
    #[test]
    fn hand_worked_curve() {
        let mut legal = [false; NN];
        legal[..4].fill(true);
        let mut c = Curve::default();
        // Position A: scores favour point 0 as worst. Played = 3 (best: lowest score).
        let mut s = [0.0f32; NN];
        s[..4].copy_from_slice(&[0.9, 0.5, 0.4, 0.1]);
        for v in &mut s[4..] {
            *v = 0.95; // occupied points rated worse than everything legal
        }
        c.add(&s, &legal, 3);
        // Position B: same scores, played = 0 (the worst legal point).
        c.add(&s, &legal, 0);
        // Position C: tie between 1 and 2; played = 2 loses the tie (index order: 1 first).
        s[1] = 0.4;
        c.add(&s, &legal, 2);
        // A pass is skipped.
        c.add(&s, &legal, NN);
        assert_eq!((c.n, c.passes), (3, 1));
        // All-points ranks: A: 77 occupied + 3 legal worse -> 80; B: 77; C: 77 + {0,1} -> 79.
        assert_eq!(c.error_all(77), 0.0);
        assert!((c.error_all(78) - 1.0 / 3.0).abs() < 1e-12);
        assert!((c.error_all(80) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(c.error_all(81), 1.0);
        // Legal ranks: A 3, B 0, C 2.
        assert_eq!(c.error_legal(0), 0.0);
        assert!((c.error_legal(1) - 1.0 / 3.0).abs() < 1e-12);
        assert!((c.error_legal(3) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(c.error_legal(4), 1.0);
        // Best ranks among 4 legal: A 0, B 3, C 1.
        assert!((c.top_k(1) - 1.0 / 3.0).abs() < 1e-12);
        assert!((c.top_k(2) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(c.top_k(4), 1.0);
        assert_eq!(c.largest_x_within(0.34, false), 79);
        assert_eq!(c.largest_x_within(0.0, true), 0);
        assert_eq!(c.largest_x_within(0.5, true), 2);
    }

    /// The per-position ranks agree with the histograms, and the top-1 move is the played
    /// one exactly when its best-first place is 0.
    #[test]
    fn move_ranks_match_the_curve() {
        let mut legal = [false; NN];
        legal[..4].fill(true);
        let mut s = [0.95f32; NN];
        s[..4].copy_from_slice(&[0.9, 0.5, 0.4, 0.1]);
        let r = rank_move(&s, &legal, 3).unwrap();
        assert_eq!(
            (r.all, r.legal, r.best, r.legal_count, r.top1),
            (80, 3, 0, 4, 3)
        );
        let r = rank_move(&s, &legal, 0).unwrap();
        assert_eq!((r.all, r.legal, r.best, r.top1), (77, 0, 3, 3));
        assert_eq!(rank_move(&s, &legal, NN), None);
        assert_eq!(
            rank_move(&s, &[false; NN], 5).map(|r| r.top1),
            Some(NN as u8)
        );
        let ranks = [rank_move(&s, &legal, 3), rank_move(&s, &legal, 0), None];
        let mut c = Curve::default();
        for p in [3, 0, NN] {
            c.add(&s, &legal, p);
        }
        assert_eq!(Curve::from_ranks(ranks.iter().map(Option::as_ref)), c);
    }
}
