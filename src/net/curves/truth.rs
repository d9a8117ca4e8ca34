//! The engine-judged bad-move curve (`eval --truth teacher[:LOSS]`): pruning measured
//! against a teacher's judgement of every legal move instead of the one move a player chose.
//!
//! The paper's error rate calls every move the player did not choose bad, so pruning an
//! equally good alternative counts as correct and keeping the player's own blunder as an
//! error. With per-move labels (`dataset label --per-move`) each point has the teacher's
//! loss against its best move: a move is **good** when its loss is at most LOSS (win rate by
//! default, or points of score lead) and **bad** otherwise. Pruning `x` removes the `x`
//! worst-rated of the 81 points (the paper's form: occupied points are never good, so
//! ranking them costs nothing). Per `x` the curve gives:
//! - `good_lost`: the share of positions where a good move is pruned (the engine-judged
//!   error rate);
//! - `good_pruned`: the share of all good moves pruned (1 - the share kept);
//! - `bad_left`: the mean number of bad moves that survive;
//! - `paper`: the paper's error rate on the same positions (the played move pruned).

use crate::dataset::Position;
use crate::dataset::record::TeacherLabel;
use crate::prune::cmp_worst_first;
use crate::rules::NN;

use crate::net::inference::scorer::PositionScorer;

/// What counts as a good move: within this loss of the teacher's best.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Truth {
    /// Win rate given up (0..1).
    WinRate(f32),
    /// Points of score lead given up.
    Score(f32),
}

/// The loss a good move may have by default: two points of win rate.
pub const DEFAULT_LOSS: f32 = 0.02;

impl std::str::FromStr for Truth {
    type Err = String;
    /// `teacher` (win rate within [`DEFAULT_LOSS`]), `teacher:LOSS` (win rate, 0..1) or
    /// `teacher:score:POINTS`.
    fn from_str(text: &str) -> Result<Truth, String> {
        let bad = || {
            format!(
                "--truth {text:?}: expected teacher, teacher:LOSS (win rate given up, 0..1) or \
                 teacher:score:POINTS"
            )
        };
        let rest = text.strip_prefix("teacher").ok_or_else(bad)?;
        if rest.is_empty() {
            return Ok(Truth::WinRate(DEFAULT_LOSS));
        }
        let rest = rest.strip_prefix(':').ok_or_else(bad)?;
        if let Some(points) = rest.strip_prefix("score:") {
            let p: f32 = points.parse().map_err(|_| bad())?;
            if !(p.is_finite() && p >= 0.0) {
                return Err(bad());
            }
            return Ok(Truth::Score(p));
        }
        let l: f32 = rest.parse().map_err(|_| bad())?;
        if !(0.0..=1.0).contains(&l) {
            return Err(bad());
        }
        Ok(Truth::WinRate(l))
    }
}

impl std::fmt::Display for Truth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Truth::WinRate(l) => write!(f, "teacher:{l}"),
            Truth::Score(p) => write!(f, "teacher:score:{p}"),
        }
    }
}

impl Truth {
    /// Each point judged good (`Some(true)`), bad (`Some(false)`) or not judged (`None`),
    /// and the same for pass (slot 81), from `t`'s per-move values.
    pub fn judge(&self, t: &TeacherLabel) -> [Option<bool>; NN + 1] {
        let (losses, limit) = match *self {
            Truth::WinRate(l) => (t.winrate_losses(), l),
            Truth::Score(p) => (t.score_losses(), p),
        };
        // A tiny tolerance: stored values are rounded (1/65534 of win rate, 1/100 point).
        losses.map(|l| l.map(|l| l <= limit + 1e-4))
    }
}

/// Counts from which every point of the engine-judged curve follows.
#[derive(Debug, Clone, PartialEq)]
pub struct TruthCurve {
    /// Positions counted (with per-move values and a good point).
    pub n: u64,
    /// Positions left out: no per-move values, or no good point (only passing is good).
    pub skipped: u64,
    /// `first_good[r]`: positions whose first good point in worst-first order is at `r`.
    pub first_good: [u64; NN],
    /// `good_at[r]` / `bad_at[r]`: good / bad points at place `r` of the worst-first order.
    pub good_at: [u64; NN],
    pub bad_at: [u64; NN],
    pub good_total: u64,
    pub bad_total: u64,
    /// Positions whose played move (pass included) the teacher judges bad.
    pub played_bad: u64,
    /// `played_at[r]`: positions whose played point is at `r` (the paper's curve here).
    pub played_at: [u64; NN],
}

impl Default for TruthCurve {
    fn default() -> Self {
        TruthCurve {
            n: 0,
            skipped: 0,
            first_good: [0; NN],
            good_at: [0; NN],
            bad_at: [0; NN],
            good_total: 0,
            bad_total: 0,
            played_bad: 0,
            played_at: [0; NN],
        }
    }
}

impl TruthCurve {
    /// Counts one position rated by `scores` (badness).
    pub fn add(&mut self, truth: Truth, pos: &Position, scores: &[f32; NN]) {
        let Some(t) = pos.teacher.as_ref().filter(|t| t.moves.is_some()) else {
            self.skipped += 1;
            return;
        };
        let judged = truth.judge(t);
        if !judged[..NN].contains(&Some(true)) {
            self.skipped += 1;
            return;
        }
        self.n += 1;
        let mut order: Vec<usize> = (0..NN).collect();
        order.sort_by(|&a, &b| cmp_worst_first(scores, a, b));
        let mut first = None;
        for (r, &q) in order.iter().enumerate() {
            match judged[q] {
                Some(true) => {
                    self.good_at[r] += 1;
                    self.good_total += 1;
                    first.get_or_insert(r);
                }
                Some(false) => {
                    self.bad_at[r] += 1;
                    self.bad_total += 1;
                }
                None => {}
            }
            if q == pos.played as usize {
                self.played_at[r] += 1;
            }
        }
        self.first_good[first.expect("a good point")] += 1;
        if judged[pos.played as usize] == Some(false) {
            self.played_bad += 1;
        }
    }

    fn below(hist: &[u64; NN], x: usize) -> u64 {
        hist[..x.min(NN)].iter().sum()
    }

    fn share(num: u64, den: u64) -> f64 {
        if den == 0 {
            0.0
        } else {
            num as f64 / den as f64
        }
    }

    /// Share of positions where pruning `x` points removes a good move.
    pub fn good_lost(&self, x: usize) -> f64 {
        Self::share(Self::below(&self.first_good, x), self.n)
    }

    /// Share of all good moves that pruning `x` points removes.
    pub fn good_pruned(&self, x: usize) -> f64 {
        Self::share(Self::below(&self.good_at, x), self.good_total)
    }

    /// Mean number of bad moves per position that survive pruning `x` points.
    pub fn bad_left(&self, x: usize) -> f64 {
        Self::share(self.bad_total - Self::below(&self.bad_at, x), self.n)
    }

    /// The paper's error rate on these positions: the played point pruned.
    pub fn paper(&self, x: usize) -> f64 {
        Self::share(Self::below(&self.played_at, x), self.n)
    }

    /// Share of positions whose played move the teacher judges bad.
    pub fn played_bad_share(&self) -> f64 {
        Self::share(self.played_bad, self.n)
    }

    /// The largest `x` (0..=80) that keeps at least `keep` of the good moves.
    pub fn largest_x_keeping(&self, keep: f64) -> usize {
        (0..NN)
            .take_while(|&x| 1.0 - self.good_pruned(x) >= keep - 1e-12)
            .last()
            .unwrap_or(0)
    }
}

/// The curve of `scorer` over `positions` under `truth`.
pub fn truth_curve(
    truth: Truth,
    scorer: &dyn PositionScorer,
    positions: &[Position],
) -> TruthCurve {
    let mut c = TruthCurve::default();
    let mut scores = [0f32; NN];
    for pos in positions {
        let board = pos.board();
        scorer.score(pos, &board, &mut scores);
        c.add(truth, pos, &scores);
    }
    c
}

/// The teacher's own policy as a pruner (`eval --model teacher`): badness 1 - its policy
/// share, 2 where it calls the move illegal; the reference curve of a labelled dataset.
pub struct TeacherPolicy;

impl PositionScorer for TeacherPolicy {
    fn name(&self) -> String {
        "teacher".into()
    }
    fn score(&self, pos: &Position, _board: &crate::rules::Board, out: &mut [f32; NN]) {
        let t = pos
            .teacher
            .as_ref()
            .expect("eval checks that every position is labelled before scoring");
        for (q, o) in out.iter_mut().enumerate() {
            *o = t.policy_share(q).map_or(2.0, |p| 1.0 - p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::record::{MoveValues, NO_SCORE, NO_SHARE, share_to_u16};

    /// A position on an empty board with the teacher's per-move win rates `wins` (point,
    /// win rate), every other point unjudged; the played point `played`.
    fn labelled(wins: &[(usize, f32)], played: u8) -> Position {
        let mut m = MoveValues {
            winrate: [NO_SHARE; NN + 1],
            score_lead: [NO_SCORE; NN + 1],
        };
        for &(q, w) in wins {
            m.winrate[q] = share_to_u16(w);
            m.score_lead[q] = (w * 1000.0) as i16;
        }
        Position {
            cells: [0; NN],
            to_move: 1,
            played,
            move_number: 0,
            last_moves: [crate::dataset::NO_POINT; 4],
            ko: crate::dataset::NO_POINT,
            winner: 0,
            black_rank: 0,
            white_rank: 0,
            game: 0,
            search: None,
            teacher: Some(Box::new(TeacherLabel {
                policy: [share_to_u16(1.0 / 82.0); NN + 1],
                winrate: 0.5,
                score_lead: 0.0,
                visits: 1,
                ownership: [0; NN],
                moves: Some(Box::new(m)),
            })),
        }
    }

    /// Hand-worked: points 0 (best, 0.60), 1 (0.59: good within 0.02), 2 (0.50: bad);
    /// scores rate point 1 worst, then 2, then 0, the rest in between by index.
    #[test]
    fn a_hand_worked_position_gives_each_measure() {
        let pos = labelled(&[(0, 0.60), (1, 0.59), (2, 0.50)], 2);
        let mut scores = [0.5f32; NN];
        scores[1] = 0.99;
        scores[2] = 0.98;
        scores[0] = 0.0;
        let mut c = TruthCurve::default();
        c.add(Truth::WinRate(0.02), &pos, &scores);
        assert_eq!((c.n, c.good_total, c.bad_total, c.played_bad), (1, 2, 1, 1));
        assert_eq!(c.good_lost(0), 0.0);
        assert_eq!(
            c.good_lost(1),
            1.0,
            "the first point pruned is good (point 1)"
        );
        assert_eq!(c.good_pruned(1), 0.5);
        assert_eq!(
            c.good_pruned(80),
            0.5,
            "point 0 is rated best of all: never pruned"
        );
        assert_eq!(c.good_pruned(81), 1.0);
        assert_eq!((c.bad_left(1), c.bad_left(2)), (1.0, 0.0));
        assert_eq!(
            (c.paper(1), c.paper(2)),
            (0.0, 1.0),
            "the played point 2 is second"
        );
        assert_eq!(c.largest_x_keeping(0.95), 0);
        // With a looser loss point 2 is good too; a stricter one leaves only point 0.
        let mut loose = TruthCurve::default();
        loose.add(Truth::WinRate(0.2), &pos, &scores);
        assert_eq!((loose.good_total, loose.played_bad), (3, 0));
        let mut strict = TruthCurve::default();
        strict.add(Truth::WinRate(0.001), &pos, &scores);
        assert_eq!((strict.good_total, strict.good_lost(2)), (1, 0.0));
        // Score form: leads 6.00, 5.90 and 5.00 points: within 0.1, points 0 and 1.
        let mut score = TruthCurve::default();
        score.add(Truth::Score(0.1), &pos, &scores);
        assert_eq!(score.good_total, 2);
    }

    /// A move whose loss is LOSS itself, as stored (win rates are kept in steps of
    /// 1/65534), is good: the boundary belongs to the good side; one step past it is bad.
    #[test]
    fn a_loss_of_exactly_the_limit_is_good() {
        let mut pos = labelled(&[(0, 0.6)], 0);
        let m = pos.teacher.as_mut().unwrap().moves.as_mut().unwrap();
        m.winrate[0] = 40_000;
        m.winrate[1] = 40_000 - 1_311; // 0.020005 below: 0.02 as stored
        m.winrate[2] = 40_000 - 1_324; // 0.020203 below: beyond
        let judged = Truth::WinRate(0.02).judge(pos.teacher.as_ref().unwrap());
        assert_eq!(&judged[..4], &[Some(true), Some(true), Some(false), None]);
    }

    #[test]
    fn positions_without_per_move_values_are_skipped_and_truth_parses() {
        let mut pos = labelled(&[(0, 0.5)], 0);
        pos.teacher.as_mut().unwrap().moves = None;
        let mut c = TruthCurve::default();
        c.add(Truth::WinRate(0.02), &pos, &[0.0; NN]);
        assert_eq!((c.n, c.skipped), (0, 1));
        assert_eq!("teacher".parse(), Ok(Truth::WinRate(DEFAULT_LOSS)));
        assert_eq!("teacher:0.05".parse(), Ok(Truth::WinRate(0.05)));
        assert_eq!("teacher:score:1.5".parse(), Ok(Truth::Score(1.5)));
        for bad in [
            "played",
            "teacher:",
            "teacher:2",
            "teacher:score:-1",
            "teacherx",
        ] {
            assert!(bad.parse::<Truth>().is_err(), "{bad}");
        }
    }
}
