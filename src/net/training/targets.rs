//! What each head of a network learns from a position: the training targets, beside
//! [`encode`](crate::net::inference::encode) for what the network sees. The training loop
//! ([`train`](super::train)) turns a batch into these numbers and each head's loss compares
//! its output with them; the tasks there decide which targets a network gets.
//!
//! - move head: the move played ([`played_point`]), or the search's root visits as a
//!   distribution ([`visit_target`]); the paper's MLP learns a 0/1 bad-move vector made
//!   from either ([`bad_move_target`]);
//! - value head: the game's result for the side to move ([`value_target`]), optionally
//!   blended with the search's root win rate ([`blended_value_target`]);
//! - ownership head: each point's final owner ([`ownership_target`]);
//! - from a teacher's label (`dataset label`): its policy ([`teacher_target`]), its win rate
//!   blended into the value ([`distilled_value_target`]), its expected ownership and its
//!   score lead ([`score_target`]).
//!
//! A target is a plain function of a [`Position`] (NaN where the record does not say, so
//! the loss can leave it out). A new target goes here, with the record field it reads in
//! `dataset/record.rs` and its loss in the task that trains it.

use crate::dataset::Position;
use crate::net::inference::cnn::SCORE_SCALE;
use crate::rules::NN;

/// The move head's target under `target = played`: the played point (a pass counts as
/// point 80: passes are not in datasets built by default).
pub fn played_point(p: &Position) -> i64 {
    (p.played as i64).min(NN as i64 - 1)
}

/// The paper's MLP target (BCE, 1 = bad): every point bad but the played one (`soft`
/// empty), or, from the visit distributions `soft` ([`visit_target`] rows), good where
/// the root spent at least `bad_share` of its visits (a one-hot row keeps its played move
/// good). `played` and `soft` are a batch's rows, `rows * 81` values out.
pub fn bad_move_target(played: &[i64], soft: &[f32], bad_share: f64) -> Vec<f32> {
    let mut t = vec![1f32; played.len() * NN];
    if soft.is_empty() {
        for (row, &p) in t.chunks_mut(NN).zip(played) {
            row[p as usize] = 0.0;
        }
    } else {
        for (row, share) in t.iter_mut().zip(soft) {
            if f64::from(*share) >= bad_share {
                *row = 0.0;
            }
        }
    }
    t
}

/// A position's outcome for the side to move: 1 won, 0 lost, NaN when the record does not
/// say (unknown result or a draw).
pub fn value_target(p: &Position) -> f32 {
    match p.winner {
        0 => f32::NAN,
        w if w == p.to_move => 1.0,
        _ => 0.0,
    }
}

/// The value target with the teacher's win rate blended in after the search's:
/// `(1 - t) * v + t * teacher` where `v` is [`blended_value_target`] and the record has a
/// teacher's label; at `t` = 1 the teacher's value alone, even where the result is unknown.
pub fn distilled_value_target(p: &Position, search_share: f64, teacher_share: f64) -> f32 {
    let v = blended_value_target(p, search_share);
    let Some(t) = p.teacher.as_ref().filter(|_| teacher_share > 0.0) else {
        return v;
    };
    let teacher = t.winrate.clamp(0.0, 1.0);
    if teacher_share >= 1.0 {
        return teacher;
    }
    if v.is_nan() {
        return v;
    }
    let s = teacher_share as f32;
    (1.0 - s) * v + s * teacher
}

/// The value head's training target: the result blended with the search's root win rate
/// for the side to move, `(1 - share) * result + share * root` ([`TrainConfig::value_search_share`](crate::net::inference::model::TrainConfig::value_search_share));
/// the result alone where the record has no root value, NaN where the result is unknown.
pub fn blended_value_target(p: &Position, share: f64) -> f32 {
    let result = value_target(p);
    let root = p.search.as_ref().map_or(f32::NAN, |s| s.value);
    if share == 0.0 || result.is_nan() || !root.is_finite() {
        return result;
    }
    let share = share as f32;
    (1.0 - share) * result + share * root.clamp(0.0, 1.0)
}

/// Each point's owner from the side to move's view: a teacher's expected ownership where
/// the record has a teacher's label (-1..1, continuous), else the final owner (+1 the
/// mover's, -1 the opponent's, 0 nobody's); NaN everywhere when the record has neither.
pub fn ownership_target(p: &Position) -> [f32; NN] {
    if let Some(t) = &p.teacher {
        let sign = if p.to_move == 2 { -1.0 } else { 1.0 };
        return std::array::from_fn(|i| sign * t.owner_black(i));
    }
    match p.search.as_ref().and_then(|s| s.ownership.as_ref()) {
        None => [f32::NAN; NN],
        Some(owners) => std::array::from_fn(|i| match owners[i] {
            0 => 0.0,
            o if o == p.to_move => 1.0,
            _ => -1.0,
        }),
    }
}

/// The score head's target: the teacher's score lead for the side to move over
/// [`SCORE_SCALE`]; NaN for a record without a teacher's label (a game's final margin is
/// not a position's expected lead: resignations and big early mistakes would teach it
/// noise, so unlabelled records leave the head alone).
pub fn score_target(p: &Position) -> f32 {
    p.teacher
        .as_ref()
        .map_or(f32::NAN, |t| t.score_lead / SCORE_SCALE)
}

/// The distribution a position's visits give the 81 points (pass left out, the rest
/// renormalised); one-hot on the played point for a record without visits.
pub fn visit_target(p: &Position) -> [f32; NN] {
    let mut t = [0f32; NN];
    let visits = p.search.as_ref().map(|s| &s.visits[..NN]);
    let total: u32 = visits.map_or(0, |v| v.iter().map(|&x| x as u32).sum());
    match visits {
        Some(v) if total > 0 => {
            for (o, &x) in t.iter_mut().zip(v) {
                *o = x as f32 / total as f32;
            }
        }
        _ => t[(p.played as usize).min(NN - 1)] = 1.0,
    }
    t
}

/// A teacher's policy over the points akushu's rules allow the side to move (`legal`, the
/// mask the move head's softmax applies): pass and forbidden points left out, the rest
/// renormalised. `None` where nothing is left (no label, or every share on pass or on points
/// akushu forbids: a teacher's ko and suicide rules may differ): a target with weight on a
/// masked logit would cost its share times the mask's 1e9 in the loss.
pub fn teacher_policy(p: &Position, legal: &[bool; NN]) -> Option<[f32; NN]> {
    let l = p.teacher.as_ref()?;
    let shares: [f32; NN] = std::array::from_fn(|q| {
        if legal[q] {
            l.policy_share(q).unwrap_or(0.0)
        } else {
            0.0
        }
    });
    let total: f32 = shares.iter().sum();
    (total > 0.0).then(|| shares.map(|x| x / total))
}

/// The move head's target under `target = teacher`: [`teacher_policy`], or one-hot on the
/// played point where it has none ([`teacher_fallbacks`] counts those).
pub fn teacher_target(p: &Position, legal: &[bool; NN]) -> [f32; NN] {
    teacher_policy(p, legal).unwrap_or_else(|| {
        let mut t = [0f32; NN];
        t[played_point(p) as usize] = 1.0;
        t
    })
}

/// How many of `positions` train on the move played under `target = teacher`: those
/// [`teacher_policy`] has nothing for.
pub fn teacher_fallbacks(positions: &[Position]) -> usize {
    positions
        .iter()
        .filter(|p| teacher_policy(p, &p.legal_points()).is_none())
        .count()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dataset::record::{SearchTarget, VISIT_SLOTS};

    pub(crate) fn position(search: Option<Box<SearchTarget>>) -> Position {
        let mut cells = [0u8; NN];
        cells[0] = 1;
        Position {
            cells,
            to_move: 2,
            played: 5,
            move_number: 1,
            last_moves: [
                0,
                crate::dataset::NO_POINT,
                crate::dataset::NO_POINT,
                crate::dataset::NO_POINT,
            ],
            ko: crate::dataset::NO_POINT,
            winner: 0,
            black_rank: 0,
            white_rank: 0,
            game: 0,
            search,
            teacher: None,
        }
    }

    pub(crate) fn target(visits: &[(usize, u16)]) -> Option<Box<SearchTarget>> {
        let mut v = [0u16; VISIT_SLOTS];
        for &(i, n) in visits {
            v[i] = n;
        }
        Some(Box::new(SearchTarget {
            visits: v,
            value: f32::NAN,
            simulations: 0,
            ownership: None,
            score: f32::NAN,
        }))
    }

    /// The teacher's targets: its policy renormalised over the points (illegal ones 0),
    /// its win rate blended into the value (alone at share 1, even with no result), its
    /// ownership turned to the side to move; records without a label keep the old targets.
    #[test]
    fn teacher_targets_follow_the_label_and_fall_back_without_one() {
        use crate::dataset::record::{NO_SHARE, TeacherLabel, share_to_u16};
        let mut p = position(None);
        let legal = p.legal_points();
        assert_eq!(
            teacher_target(&p, &legal)[5],
            1.0,
            "no label: the played point"
        );
        let mut policy = [0u16; VISIT_SLOTS];
        policy[3] = share_to_u16(0.3);
        policy[4] = share_to_u16(0.1);
        policy[0] = NO_SHARE;
        policy[NN] = share_to_u16(0.6);
        let mut ownership = [0i8; NN];
        ownership[7] = 127;
        ownership[8] = -64;
        p.teacher = Some(Box::new(TeacherLabel {
            policy,
            winrate: 0.8,
            score_lead: 3.0,
            visits: 1,
            ownership,
            moves: None,
        }));
        let t = teacher_target(&p, &legal);
        assert!(
            (t[3] - 0.75).abs() < 1e-4 && (t[4] - 0.25).abs() < 1e-4,
            "{:?}",
            &t[..5]
        );
        assert_eq!(t[0], 0.0);
        // Unknown result: blended it stays unknown; the teacher alone gives its value.
        assert!(distilled_value_target(&p, 0.0, 0.5).is_nan());
        assert_eq!(distilled_value_target(&p, 0.0, 1.0), 0.8);
        assert_eq!(score_target(&p), 3.0 / SCORE_SCALE);
        assert!(score_target(&position(None)).is_nan(), "no label, no score");
        p.winner = 2; // white, the side to move, won
        assert_eq!(distilled_value_target(&p, 0.0, 0.0), 1.0);
        assert!((distilled_value_target(&p, 0.0, 0.25) - 0.95).abs() < 1e-6);
        // White to move: black's point 7 is the opponent's.
        let own = ownership_target(&p);
        assert_eq!(own[7], -1.0);
        assert!((own[8] - 64.0 / 127.0).abs() < 1e-6);
        assert_eq!(own[0], 0.0);
    }

    #[test]
    fn the_value_target_blends_the_result_with_the_search_root() {
        let mut root = target(&[(5, 1)]);
        root.as_mut().unwrap().value = 0.8;
        let mut won = position(root);
        won.winner = 2; // white, the side to move
        assert_eq!(blended_value_target(&won, 0.0), 1.0);
        assert!((blended_value_target(&won, 0.5) - 0.9).abs() < 1e-6);
        assert!((blended_value_target(&won, 1.0) - 0.8).abs() < 1e-6);
        won.winner = 1;
        assert!((blended_value_target(&won, 0.25) - 0.2).abs() < 1e-6);
        // No root value (human records, an engine that gave none): the result alone; no
        // result: unknown, whatever the root says.
        let mut human = position(None);
        human.winner = 2;
        assert_eq!(blended_value_target(&human, 0.5), 1.0);
        let mut no_root = position(target(&[(5, 1)]));
        no_root.winner = 2;
        assert_eq!(blended_value_target(&no_root, 0.5), 1.0, "NaN root");
        won.winner = 0;
        assert!(blended_value_target(&won, 0.5).is_nan());
    }

    #[test]
    fn the_bad_move_target_keeps_the_played_or_the_visited_points_good() {
        let played = bad_move_target(&[5], &[], 0.2);
        assert_eq!(played.iter().filter(|&&t| t == 0.0).count(), 1);
        assert_eq!(played[5], 0.0);
        let t = visit_target(&position(target(&[(5, 30), (6, 10)])));
        let soft = bad_move_target(&[5], &t, 0.3);
        assert_eq!((soft[5], soft[6], soft[7]), (0.0, 1.0, 1.0));
    }
}
