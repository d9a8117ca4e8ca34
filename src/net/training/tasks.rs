//! The training tasks: how a batch of positions becomes numbers for a network ([`Encoded`],
//! built by the loader thread), each network's forward pass and loss ([`MlpTask`] and
//! [`CnnTask`], with the value, ownership and score heads' losses), and validation (loss,
//! move curve and value calls in one pass). The targets the losses compare with are
//! [`targets`](super::targets); the loop that runs the tasks is [`train`](super::train).

use super::targets::{
    bad_move_target, distilled_value_target, ownership_target, played_point, score_target,
    teacher_target, value_target, visit_target,
};
use crate::dataset::Position;
use crate::net::curves::curve::Curve;
use crate::net::inference::cnn::{Cnn, masked_softmax_loss};
use crate::net::inference::encode::{CNN_PLANES, MlpEncoding, NetInput, cnn_planes, mlp_input};
use crate::net::inference::mlp::{Mlp, MlpLoss, bce_with_logits};
use crate::net::inference::model::{Target, TrainConfig};
use crate::rules::NN;
use burn::module::Module;
use burn::prelude::*;

/// How well a value head calls the winners of the positions whose result is known.
#[derive(Debug, Clone, Copy, Default)]
pub struct ValueStats {
    /// Positions with a known result.
    pub known: usize,
    /// Their summed binary cross-entropy.
    pub loss_sum: f64,
    /// Those whose winner the head called (probability above one half for the winner).
    pub called: usize,
}

impl ValueStats {
    /// Adds the value logits of a batch (`value` targets as [`Encoded::value`](Encoded::value)).
    pub(super) fn add(&mut self, logits: &[f32], targets: &[f32]) {
        for (&x, &t) in logits.iter().zip(targets) {
            if t.is_nan() {
                continue;
            }
            let (x, t) = (f64::from(x), f64::from(t));
            self.known += 1;
            self.loss_sum += x.max(0.0) - x * t + (-x.abs()).exp().ln_1p();
            if (x > 0.0) == (t > 0.5) {
                self.called += 1;
            }
        }
    }

    /// Adds another batch's counts.
    pub fn merge(&mut self, o: &ValueStats) {
        self.known += o.known;
        self.loss_sum += o.loss_sum;
        self.called += o.called;
    }

    /// Mean cross-entropy; `None` without known positions.
    pub fn loss(&self) -> Option<f64> {
        (self.known > 0).then(|| self.loss_sum / self.known as f64)
    }

    /// Share of winners called; `None` without known positions.
    pub fn accuracy(&self) -> Option<f64> {
        (self.known > 0).then(|| self.called as f64 / self.known as f64)
    }
}

/// A batch turned into plain arrays, ready to become tensors on any device. Built by the
/// loader thread, so it holds no tensors.
#[derive(Debug, Clone, Default)]
pub struct Encoded {
    /// Network input, row-major, `rows * width` values.
    pub input: Vec<f32>,
    /// Values per row of `input`.
    pub width: usize,
    /// Positions in the batch.
    pub rows: usize,
    /// True where the point is illegal for the side to move, `rows * 81`.
    pub illegal: Vec<bool>,
    /// The played move of each row (a pass counts as point 80: passes are not in datasets
    /// built by default).
    pub played: Vec<i64>,
    /// With `target = visits`: each row's target distribution over the 81 points (the root's
    /// visit shares without pass; one-hot on the played move for rows without visits);
    /// empty otherwise.
    pub soft: Vec<f32>,
    /// For a network with a value head: each row's outcome for the side to move (1 won,
    /// 0 lost, NaN unknown or drawn); empty otherwise.
    pub value: Vec<f32>,
    /// For a network with an ownership head: each point's final owner from the side to
    /// move's view (+1, -1, 0 for none), `rows * 81`, NaN for rows whose record has no final
    /// ownership (human games, resigned self-play games); empty otherwise.
    pub ownership: Vec<f32>,
    /// For a network with a score head: each row's teacher score lead for the side to move
    /// over [`SCORE_SCALE`](crate::net::inference::cnn::SCORE_SCALE) (NaN without a label); empty otherwise.
    pub score: Vec<f32>,
}

/// What differs between the networks during training: how a batch becomes numbers, the
/// forward pass, the loss, and which way the logits point.
pub trait Task<M: Module>: Sync {
    /// Encodes `batch` (positions already augmented).
    fn encode(&self, batch: &[Position]) -> Encoded;
    /// The network's raw outputs, `[rows, 81]`, on `device`.
    fn forward(&self, model: &M, enc: &Encoded, device: &Device) -> Tensor<2>;
    /// Mean loss of the batch, from the raw outputs.
    fn loss(&self, logits: Tensor<2>, enc: &Encoded, device: &Device) -> Tensor<1>;
    /// Whether higher raw outputs mean a better move (softmax) or a worse one (BCE).
    fn higher_is_better(&self) -> bool;
}

/// Fills `enc` with `batch`: each position's input row (written by `row`), its legality mask
/// and its played move, and with `visits` its target distribution.
fn encode_rows(
    batch: &[Position],
    enc: &mut Encoded,
    target: Target,
    row: impl Fn(&NetInput<'_>, &mut [f32]),
) {
    enc.soft.clear();
    let w = enc.width;
    enc.rows = batch.len();
    enc.input = vec![0f32; batch.len() * w];
    enc.illegal = Vec::with_capacity(batch.len() * NN);
    enc.played = Vec::with_capacity(batch.len());
    for (pos, out) in batch.iter().zip(enc.input.chunks_mut(w)) {
        let board = pos.board();
        let inp = NetInput::from_position(pos, &board);
        row(&inp, out);
        let legal = inp.legal_mask();
        enc.illegal.extend(legal.iter().map(|l| !l));
        enc.played.push(played_point(pos));
        match target {
            Target::Visits => enc.soft.extend(visit_target(pos)),
            // Over the points the softmax keeps: a share on a masked one has no finite loss.
            Target::Teacher => enc.soft.extend(teacher_target(pos, &legal)),
            Target::Played => {}
        }
    }
}

fn softmax_loss(logits: Tensor<2>, enc: &Encoded, device: &Device) -> Tensor<1> {
    let illegal = Tensor::from_data(TensorData::new(enc.illegal.clone(), [enc.rows, NN]), device); // [b, 81]
    if !enc.soft.is_empty() {
        let target = Tensor::from_data(TensorData::new(enc.soft.clone(), [enc.rows, NN]), device); // [b, 81]
        return soft_softmax_loss(logits, illegal, target);
    }
    let played = Tensor::from_data(TensorData::new(enc.played.clone(), [enc.rows, 1]), device); // [b, 1]
    masked_softmax_loss(logits, illegal, played)
}

/// Cross-entropy against target distributions over the legal points (the search's visit
/// shares: AlphaZero's policy loss).
fn soft_softmax_loss(logits: Tensor<2>, illegal: Tensor<2, Bool>, target: Tensor<2>) -> Tensor<1> {
    let logp = burn::tensor::activation::log_softmax(logits.mask_fill(illegal, -1.0e9), 1); // [b, 81]
    (logp * target).sum_dim(1).neg().mean() // [1]
}

/// Splits row targets with NaN for "unknown" into the targets (NaN as 0) and a 0/1 mask.
fn known(targets: &[f32]) -> (Vec<f32>, Vec<f32>) {
    targets
        .iter()
        .map(|&t| if t.is_nan() { (0.0, 0.0) } else { (t, 1.0) })
        .unzip()
}

/// Binary cross-entropy of `logits` against `targets` (NaN = unknown, contributes 0), summed
/// and divided by the batch's rows, not by the known ones: shards of a batch then add up to
/// the whole batch's loss whatever their mix of known and unknown rows.
fn masked_bce(logits: Tensor<2>, targets: &[f32], dims: [usize; 2], device: &Device) -> Tensor<1> {
    let (t, m) = known(targets);
    let t = Tensor::<2>::from_data(TensorData::new(t, dims), device);
    let m = Tensor::<2>::from_data(TensorData::new(m, dims), device);
    let pos = logits.clone().clamp_min(0.0);
    let soft = logits.clone().abs().neg().exp().log1p();
    ((pos - logits * t + soft) * m)
        .sum()
        .div_scalar(dims[0] as f32)
}

/// Squared error of `values` against `targets` (NaN = unknown, contributes 0), averaged over
/// the points of every row of the batch (known or not, as [`masked_bce`]).
fn masked_mse(values: Tensor<2>, targets: &[f32], dims: [usize; 2], device: &Device) -> Tensor<1> {
    let (t, m) = known(targets);
    let t = Tensor::<2>::from_data(TensorData::new(t, dims), device);
    let m = Tensor::<2>::from_data(TensorData::new(m, dims), device);
    ((values - t).powi_scalar(2) * m)
        .sum()
        .div_scalar((dims[0] * dims[1]) as f32)
}

/// The paper's MLP (BCE against 0 = played, 1 = every other point) or its softmax variant.
pub struct MlpTask {
    pub encoding: MlpEncoding,
    pub loss: MlpLoss,
    pub target: Target,
    /// With `target = visits` and BCE: a point under this visit share is bad.
    pub bad_share: f64,
}

impl Task<Mlp> for MlpTask {
    fn encode(&self, batch: &[Position]) -> Encoded {
        let mut enc = Encoded {
            width: self.encoding.width(),
            ..Encoded::default()
        };
        encode_rows(batch, &mut enc, self.target, |inp, row| {
            mlp_input(self.encoding, inp, row)
        });
        enc
    }
    fn forward(&self, model: &Mlp, enc: &Encoded, device: &Device) -> Tensor<2> {
        let x = Tensor::from_data(
            TensorData::new(enc.input.clone(), [enc.rows, enc.width]),
            device,
        ); // [b, w]
        model.forward(x) // [b, 81]
    }
    fn loss(&self, logits: Tensor<2>, enc: &Encoded, device: &Device) -> Tensor<1> {
        match self.loss {
            MlpLoss::Softmax => softmax_loss(logits, enc, device),
            MlpLoss::Bce => {
                let t = bad_move_target(&enc.played, &enc.soft, self.bad_share);
                let targets = Tensor::from_data(TensorData::new(t, [enc.rows, NN]), device); // [b, 81]
                bce_with_logits(logits, targets)
            }
        }
    }
    fn higher_is_better(&self) -> bool {
        self.loss == MlpLoss::Softmax
    }
}

/// The CNN with a softmax over legal points, and the losses of its value and ownership
/// heads where it has them.
pub struct CnnTask {
    pub target: Target,
    /// Weight of the value head's loss (binary cross-entropy of the outcome); `None` = the
    /// network has no value head.
    pub value_weight: Option<f64>,
    /// Weight of the ownership head's loss (mean squared error of `tanh` per point); `None`
    /// = no ownership head.
    pub ownership_weight: Option<f64>,
    /// Weight of the score head's loss (squared error of the scaled lead); `None` = no score
    /// head.
    pub score_weight: Option<f64>,
    /// Only the value and ownership heads learn ([`TrainConfig::heads_only`]).
    pub heads_only: bool,
    /// The search's share of the value target ([`TrainConfig::value_search_share`]).
    pub value_search_share: f64,
    /// The teacher's share of it ([`TrainConfig::value_teacher_share`]).
    pub value_teacher_share: f64,
    /// Whether the inputs carry the last two moves
    /// ([`CnnConfig::history`](crate::net::inference::cnn::CnnConfig::history)).
    pub history: bool,
}

impl CnnTask {
    /// The task of a network shaped by `config` (its heads and their loss weights).
    pub fn of(config: &TrainConfig, target: Target) -> CnnTask {
        CnnTask {
            target,
            value_weight: (config.cnn.value_channels > 0).then_some(config.value_weight),
            ownership_weight: config.cnn.ownership.then_some(config.ownership_weight),
            score_weight: config.cnn.score.then_some(config.score_weight),
            heads_only: config.heads_only,
            value_search_share: config.value_search_share,
            value_teacher_share: config.value_teacher_share,
            history: config.cnn.history,
        }
    }

    /// The task that reads only the move logits (evaluation curves).
    pub fn moves_only(target: Target) -> CnnTask {
        CnnTask {
            target,
            value_weight: None,
            ownership_weight: None,
            score_weight: None,
            heads_only: false,
            value_search_share: 0.0,
            value_teacher_share: 0.0,
            history: true,
        }
    }
}

impl Task<Cnn> for CnnTask {
    fn encode(&self, batch: &[Position]) -> Encoded {
        let mut enc = Encoded {
            width: CNN_PLANES * NN,
            ..Encoded::default()
        };
        encode_rows(batch, &mut enc, self.target, |inp, row| {
            cnn_planes(&inp.with_history(self.history), row)
        });
        if self.value_weight.is_some() {
            enc.value = batch
                .iter()
                .map(|p| {
                    distilled_value_target(p, self.value_search_share, self.value_teacher_share)
                })
                .collect();
        }
        if self.ownership_weight.is_some() {
            enc.ownership = batch.iter().flat_map(ownership_target).collect();
        }
        if self.score_weight.is_some() {
            enc.score = batch.iter().map(score_target).collect();
        }
        enc
    }
    /// The move logits, then (with those heads) the value logit, the 81 ownership logits and
    /// the scaled score lead: `[b, 81 (+1) (+81) (+1)]`.
    fn forward(&self, model: &Cnn, enc: &Encoded, device: &Device) -> Tensor<2> {
        let x = Tensor::from_data(
            TensorData::new(enc.input.clone(), [enc.rows, CNN_PLANES, 9, 9]),
            device,
        ); // [b, planes, 9, 9]
        if self.value_weight.is_none()
            && self.ownership_weight.is_none()
            && self.score_weight.is_none()
        {
            return model.forward(x); // [b, 81]
        }
        let heads = if self.heads_only {
            model.forward_heads_frozen_trunk(x)
        } else {
            model.forward_heads(x)
        };
        let mut parts = vec![heads.policy];
        parts.extend(heads.value.filter(|_| self.value_weight.is_some()));
        parts.extend(heads.ownership.filter(|_| self.ownership_weight.is_some()));
        parts.extend(heads.score.filter(|_| self.score_weight.is_some()));
        Tensor::cat(parts, 1)
    }
    fn loss(&self, out: Tensor<2>, enc: &Encoded, device: &Device) -> Tensor<1> {
        let rows = enc.rows;
        let mut loss = softmax_loss(out.clone().slice([0..rows, 0..NN]), enc, device);
        let mut col = NN;
        if let Some(w) = self.value_weight {
            let logit = out.clone().slice([0..rows, col..col + 1]); // [b, 1]
            col += 1;
            loss = loss + masked_bce(logit, &enc.value, [rows, 1], device).mul_scalar(w);
        }
        if let Some(w) = self.ownership_weight {
            let owner = out.clone().slice([0..rows, col..col + NN]).tanh(); // [b, 81]
            col += NN;
            loss = loss + masked_mse(owner, &enc.ownership, [rows, NN], device).mul_scalar(w);
        }
        if let Some(w) = self.score_weight {
            let lead = out.slice([0..rows, col..col + 1]); // [b, 1]
            loss = loss + masked_mse(lead, &enc.score, [rows, 1], device).mul_scalar(w);
        }
        loss
    }
    fn higher_is_better(&self) -> bool {
        true
    }
}

/// Rows `a..b` of a per-row array of `width` values (empty stays empty).
fn rows_of(v: &[f32], a: usize, b: usize, width: usize) -> Vec<f32> {
    if v.is_empty() {
        Vec::new()
    } else {
        v[a * width..b * width].to_vec()
    }
}

/// Splits an encoded batch into `n` row ranges of near-equal size (none empty).
pub(super) fn split_rows(enc: &Encoded, n: usize) -> Vec<Encoded> {
    let n = n.clamp(1, enc.rows.max(1));
    let w = enc.width;
    (0..n)
        .map(|i| {
            let (a, b) = (enc.rows * i / n, enc.rows * (i + 1) / n);
            Encoded {
                input: enc.input[a * w..b * w].to_vec(),
                width: w,
                rows: b - a,
                illegal: enc.illegal[a * NN..b * NN].to_vec(),
                played: enc.played[a..b].to_vec(),
                soft: rows_of(&enc.soft, a, b, NN),
                value: rows_of(&enc.value, a, b, 1),
                ownership: rows_of(&enc.ownership, a, b, NN),
                score: rows_of(&enc.score, a, b, 1),
            }
        })
        .collect()
}

/// Validation loss (mean over positions), the curve of the network's move scores and the
/// value head's calls (empty without one): one forward pass per chunk serves all three.
pub fn validate<M: Module, T: Task<M>>(
    model: &M,
    task: &T,
    validation: &[Position],
    device: &Device,
) -> (f64, Curve, ValueStats) {
    let mut curve = Curve::default();
    let mut value = ValueStats::default();
    let (mut loss_sum, mut n) = (0.0f64, 0usize);
    for chunk in validation.chunks(1024) {
        let enc = task.encode(chunk);
        let out = task.forward(model, &enc, device);
        let l = task.loss(out.clone(), &enc, device).into_scalar::<f32>() as f64;
        loss_sum += l * chunk.len() as f64;
        n += chunk.len();
        let rows = enc.rows;
        let logits = if out.dims()[1] > NN {
            // Heads after the move logits: the value logit comes first.
            if !enc.value.is_empty() {
                // Called against the games' results whatever the training target blends in,
                // so runs with different targets compare.
                let results: Vec<f32> = chunk.iter().map(value_target).collect();
                let v = out.clone().slice([0..rows, NN..NN + 1]);
                value.add(&crate::net::inference::plain::float_values(v), &results);
            }
            out.slice([0..rows, 0..NN])
        } else {
            out
        };
        let scores = badness_scores(task.higher_is_better(), logits, &enc.illegal);
        for ((pos, row), illegal) in chunk
            .iter()
            .zip(scores.chunks(NN))
            .zip(enc.illegal.chunks(NN))
        {
            let s: &[f32; NN] = row.try_into().expect("81 scores per position");
            let legal: [bool; NN] = std::array::from_fn(|i| !illegal[i]);
            curve.add(s, &legal, pos.played as usize);
        }
    }
    (loss_sum / n.max(1) as f64, curve, value)
}

/// Raw outputs as the badness the plain evaluators give (so both paths draw the same
/// curve): `1 - softmax` over the legal points with illegal points at 1 for softmax-trained
/// networks, `sigmoid` of the logit for the paper's BCE network. Row-major, 81 per position.
pub fn badness_scores(higher_is_better: bool, logits: Tensor<2>, illegal: &[bool]) -> Vec<f32> {
    let mut v = crate::net::inference::plain::float_values(logits);
    for (row, ill) in v.chunks_mut(NN).zip(illegal.chunks(NN)) {
        let row: &mut [f32; NN] = row.try_into().expect("81 logits per position");
        if higher_is_better {
            let legal: [bool; NN] = std::array::from_fn(|i| !ill[i]);
            crate::net::inference::plain::masked_softmax_badness(&legal, row);
        } else {
            for x in row.iter_mut() {
                *x = 1.0 / (1.0 + (-*x).exp());
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::record::VISIT_SLOTS;
    use crate::net::training::targets::tests::{position, target};

    /// A teacher's share on a point the softmax masks (here the stone at point 0) is left
    /// out of the target: the loss stays that of the legal shares, not share times 1e9; a
    /// label with no legal share trains on the move played, and is counted.
    #[test]
    fn teacher_shares_on_masked_points_never_reach_the_loss() {
        use crate::dataset::record::{NO_SHARE, TeacherLabel, share_to_u16};
        let label = |shares: &[(usize, f32)]| {
            let mut policy = [NO_SHARE; VISIT_SLOTS];
            for &(q, x) in shares {
                policy[q] = share_to_u16(x);
            }
            Some(Box::new(TeacherLabel {
                policy,
                winrate: 0.5,
                score_lead: 0.0,
                visits: 1,
                ownership: [0; NN],
                moves: None,
            }))
        };
        let mut on_stone = position(None);
        on_stone.teacher = label(&[(0, 0.04), (5, 0.96)]);
        let mut clean = position(None);
        clean.teacher = label(&[(5, 1.0)]);
        let mut stone_only = position(None);
        stone_only.teacher = label(&[(0, 1.0)]);
        let device = crate::net::cpu_device();
        let task = CnnTask::moves_only(Target::Teacher);
        let logits = Tensor::<2>::from_data(
            TensorData::new(
                (0..NN).map(|i| (i % 7) as f32 * 0.3).collect::<Vec<f32>>(),
                [1, NN],
            ),
            &device,
        );
        let loss = |p: &Position| -> f32 {
            softmax_loss(
                logits.clone(),
                &task.encode(std::slice::from_ref(p)),
                &device,
            )
            .into_scalar()
        };
        let (a, b) = (loss(&on_stone), loss(&clean));
        assert!((a - b).abs() < 1e-4, "{a} vs {b}");
        assert!((loss(&stone_only) - b).abs() < 1e-4, "the played point 5");
        assert_eq!(
            crate::net::training::targets::teacher_fallbacks(&[on_stone, clean, stone_only]),
            1
        );
    }

    #[test]
    fn visit_targets_are_shares_and_one_hot_soft_loss_equals_the_played_loss() {
        let with = position(target(&[(5, 30), (6, 10), (VISIT_SLOTS - 1, 60)]));
        let t = visit_target(&with);
        assert_eq!(
            (t[5], t[6]),
            (0.75, 0.25),
            "pass left out, the rest renormalised"
        );
        let human = position(None);
        assert_eq!(visit_target(&human)[5], 1.0);

        let device = crate::net::cpu_device();
        let task = CnnTask::moves_only(Target::Visits);
        let hard = CnnTask::moves_only(Target::Played);
        let batch = vec![human.clone(), position(target(&[(5, 8)]))];
        let soft_enc = task.encode(&batch);
        let hard_enc = hard.encode(&batch);
        assert_eq!(soft_enc.soft.len(), 2 * NN);
        assert!(hard_enc.soft.is_empty());
        let logits = Tensor::<2>::from_data(
            TensorData::new(
                (0..2 * NN)
                    .map(|i| (i % 7) as f32 * 0.3)
                    .collect::<Vec<f32>>(),
                [2, NN],
            ),
            &device,
        );
        let a: f32 = softmax_loss(logits.clone(), &soft_enc, &device).into_scalar();
        let b: f32 = softmax_loss(logits, &hard_enc, &device).into_scalar();
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");

        // The MLP's bad-move target from the visits: good at and above the share.
        let mlp = MlpTask {
            encoding: MlpEncoding::Paper,
            loss: MlpLoss::Bce,
            target: Target::Visits,
            bad_share: 0.2,
        };
        let enc = mlp.encode(&[with]);
        assert_eq!(enc.soft[5], 0.75);
        assert_eq!(enc.soft[6], 0.25);
    }
}
