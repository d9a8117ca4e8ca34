//! What a network's outcome heads call on held-out positions, for `eval --value`: the value
//! head against the games' results ([`network_value`]) and the score head against a
//! teacher's score lead ([`network_score`]), next to the lead its ownership head implies.

use burn::prelude::*;

pub use super::tasks::ValueStats;
use super::tasks::{CnnTask, Task, validate};
use crate::dataset::Position;
use crate::net::inference::cnn::{SCORE_KOMI, SCORE_SCALE};
use crate::net::inference::model::Target;
use crate::net::inference::plain::float_values;
use crate::rules::NN;

/// The value head's calls on `positions` against their games' results (log-loss and share
/// of winners called over the positions whose result is known); `None` for a network
/// without a value head (the MLP, a CNN without one).
pub fn network_value(
    model: &crate::net::SavedModel,
    positions: &[Position],
    device: &Device,
) -> Option<ValueStats> {
    let crate::net::SavedModel::Cnn(m, cfg) = model else {
        return None;
    };
    if cfg.value_channels == 0 {
        return None;
    }
    let task = CnnTask {
        history: cfg.history,
        value_weight: Some(1.0),
        ..CnnTask::moves_only(Target::Played)
    };
    let mut stats = ValueStats::default();
    for chunk in positions.chunks(1024) {
        let (_, _, v) = validate(m.as_ref(), &task, chunk, device);
        stats.merge(&v);
    }
    Some(stats)
}

/// How far a network's score estimates lie from a teacher's score lead, over the positions
/// that carry a teacher's label.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScoreStats {
    /// Whether the network has a score head.
    pub has_head: bool,
    /// Whether it has an ownership head.
    pub has_ownership: bool,
    /// Labelled positions.
    pub labelled: usize,
    /// Summed absolute error of the score head's lead (0 without the head).
    pub head_abs: f64,
    /// Summed absolute error of the ownership head's lead (expected area difference less
    /// [`SCORE_KOMI`]; 0 without the head).
    pub ownership_abs: f64,
    /// Summed absolute lead of the teacher (the error of always saying 0).
    pub zero_abs: f64,
}

impl ScoreStats {
    /// Mean absolute error of the score head in points; `None` without the head or without
    /// labelled positions.
    pub fn head_error(&self) -> Option<f64> {
        (self.has_head && self.labelled > 0).then(|| self.head_abs / self.labelled as f64)
    }

    /// Mean absolute error of the ownership-implied lead in points; `None` without the head.
    pub fn ownership_error(&self) -> Option<f64> {
        (self.has_ownership && self.labelled > 0).then(|| self.ownership_abs / self.labelled as f64)
    }

    /// Mean absolute teacher lead: what a constant 0 would miss by.
    pub fn zero_error(&self) -> Option<f64> {
        (self.labelled > 0).then(|| self.zero_abs / self.labelled as f64)
    }
}

/// The score head's and the ownership head's leads on `positions` against their teacher's
/// score lead (positions without a label are skipped); `None` for a network with neither
/// head (the MLP, a CNN without them).
pub fn network_score(
    model: &crate::net::SavedModel,
    positions: &[Position],
    device: &Device,
) -> Option<ScoreStats> {
    let crate::net::SavedModel::Cnn(m, cfg) = model else {
        return None;
    };
    if !cfg.score && !cfg.ownership {
        return None;
    }
    let task = CnnTask {
        history: cfg.history,
        ownership_weight: cfg.ownership.then_some(1.0),
        score_weight: cfg.score.then_some(1.0),
        ..CnnTask::moves_only(Target::Played)
    };
    let labelled: Vec<Position> = positions
        .iter()
        .filter(|p| p.teacher.is_some())
        .cloned()
        .collect();
    let mut stats = ScoreStats {
        has_head: cfg.score,
        has_ownership: cfg.ownership,
        ..ScoreStats::default()
    };
    for chunk in labelled.chunks(1024) {
        let enc = task.encode(chunk);
        let out = float_values(task.forward(m.as_ref(), &enc, device));
        let width = NN + if cfg.ownership { NN } else { 0 } + usize::from(cfg.score);
        for (p, row) in chunk.iter().zip(out.chunks_exact(width)) {
            let teacher = f64::from(p.teacher.as_ref().map_or(0.0, |t| t.score_lead));
            stats.labelled += 1;
            stats.zero_abs += teacher.abs();
            if cfg.ownership {
                let area: f64 = row[NN..2 * NN].iter().map(|&x| f64::from(x.tanh())).sum();
                // Black's lead is area - komi, white's area + komi.
                let komi = if p.to_move == 1 {
                    -SCORE_KOMI
                } else {
                    SCORE_KOMI
                };
                stats.ownership_abs += (area + f64::from(komi) - teacher).abs();
            }
            if cfg.score {
                let lead = f64::from(row[width - 1] * SCORE_SCALE);
                stats.head_abs += (lead - teacher).abs();
            }
        }
    }
    Some(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::record::{TeacherLabel, VISIT_SLOTS};
    use crate::net::SavedModel;
    use crate::net::inference::cnn::CnnConfig;
    use crate::net::inference::encode::{CNN_PLANES, NetInput, cnn_planes};
    use crate::net::inference::plain::{PlainCnn, Scratch};

    /// Each labelled position counts once, against its own teacher lead, with the score
    /// head's lead as the plain evaluator gives it and the ownership head's area less komi
    /// from the side to move's view; unlabelled positions are left out.
    #[test]
    fn score_errors_compare_each_head_with_the_teachers_lead() {
        let device = crate::net::cpu_device();
        let cfg = CnnConfig::new()
            .with_blocks(1)
            .with_channels(16)
            .with_value_channels(8)
            .with_ownership(true)
            .with_score(true);
        let m = crate::net::training::train::seeded_init(5, &device, |d| cfg.init(d));
        let plain = PlainCnn::from_burn(&m);
        let mut positions = crate::net::training::synthetic::random_game_positions(1, 3);
        positions.truncate(6);
        let leads = [4.0, -12.5, 0.0];
        for (p, lead) in positions.iter_mut().step_by(2).zip(leads) {
            p.teacher = Some(Box::new(TeacherLabel {
                policy: [0; VISIT_SLOTS],
                winrate: 0.5,
                score_lead: lead,
                visits: 1,
                ownership: [0; NN],
                moves: None,
            }));
        }
        let (mut head, mut owner) = (0.0f64, 0.0f64);
        let mut scratch = Scratch::default();
        for p in positions.iter().step_by(2) {
            let board = p.board();
            let mut planes = vec![0f32; CNN_PLANES * NN];
            cnn_planes(&NetInput::from_position(p, &board), &mut planes);
            let teacher = f64::from(p.teacher.as_ref().unwrap().score_lead);
            head += (f64::from(plain.score_lead(&planes, &mut scratch).unwrap()) - teacher).abs();
            let area: f32 = plain.ownership(&planes, &mut scratch).unwrap().iter().sum();
            let komi = if p.to_move == 1 {
                -SCORE_KOMI
            } else {
                SCORE_KOMI
            };
            owner += (f64::from(area + komi) - teacher).abs();
        }
        let model = SavedModel::Cnn(Box::new(m), cfg);
        let s = network_score(&model, &positions, &device).unwrap();
        assert_eq!(s.labelled, 3);
        assert!(
            (s.head_error().unwrap() - head / 3.0).abs() < 1e-3,
            "{s:?} {head}"
        );
        assert!(
            (s.ownership_error().unwrap() - owner / 3.0).abs() < 1e-3,
            "{s:?} {owner}"
        );
        assert!((s.zero_error().unwrap() - 16.5 / 3.0).abs() < 1e-9);
    }
}
