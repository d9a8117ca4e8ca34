//! Our stronger model: a small residual convolutional network over feature planes with one
//! logit per point, trained as a softmax over the legal points (the played move is the class).
//! Badness is `1 - p`. No batch norm, so the plain-Rust export is exact and simple.
//!
//! Two optional heads read the same tower (AlphaGo Zero's and KataGo's two-headed form):
//! - **value** (`value_channels > 0`): a per-point projection to `value_channels` features,
//!   ReLU, their mean over the 81 points (global pooling, as KataGo's value head pools), a
//!   hidden layer of [`VALUE_HIDDEN`] and one logit: the side to move's win probability is its
//!   sigmoid. Pooling keeps the head independent of how the tower lays out its points, so the
//!   conv and board-conv paths and the plain evaluator agree by construction.
//! - **ownership** (`ownership = true`): one logit per point, its `tanh` the point's final
//!   owner from the side to move's view (+1 own, -1 the opponent's); trained beside the value
//!   as an auxiliary target (KataGo: ownership makes the value learn faster).
//! - **score** (`score = true`, with a value head): the side to move's expected score lead
//!   in points divided by [`SCORE_SCALE`], one linear output from the value head's hidden
//!   layer (KataGo's value head also gives win/loss and score from one pooled trunk). It
//!   learns a teacher's `scoreLead`; analysis answers read it.

use super::encode::CNN_PLANES;
use crate::rules::NN;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig, PaddingConfig2d, Relu};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;

/// The CNN's shape.
#[derive(Config, Debug, PartialEq)]
pub struct CnnConfig {
    /// Residual blocks (two 3x3 convolutions each).
    #[config(default = 3)]
    pub blocks: usize,
    /// Channels of every hidden layer.
    #[config(default = 32)]
    pub channels: usize,
    /// Features of the value head's per-point projection (0 = no value head).
    #[config(default = 0)]
    pub value_channels: usize,
    /// An ownership head (one logit per point).
    #[config(default = false)]
    pub ownership: bool,
    /// A score-lead head beside the value (needs `value_channels > 0`).
    #[config(default = false)]
    pub score: bool,
    /// Whether the network reads the last two moves (input planes 10 and 11). `false`
    /// keeps those planes empty in training and wherever the network is evaluated: the
    /// inputs a `history=false` search (`strong2`) gives it, so such a network is never
    /// shown a plane it learned to lean on and then denied it. An input choice, not a
    /// shape: the weights are the same either way.
    #[config(default = true)]
    pub history: bool,
}

/// Hidden units of the value head.
pub const VALUE_HIDDEN: usize = 64;

/// Points per unit of the score head's output: the head learns `lead / SCORE_SCALE`, so its
/// targets on a 9x9 board (|lead| <= 81 + komi, mostly under 30) stay near the value
/// logit's range and one learning rate suits both.
pub const SCORE_SCALE: f32 = 20.0;

/// The komi the score head's lead assumes: the labeller's default (`dataset label --komi`),
/// which every shipped score head learned under. The network does not see komi, so a
/// search under another komi moves the head's lead by the difference.
pub const SCORE_KOMI: f32 = 6.5;

/// The value head: per-point projection, ReLU, mean over the points, hidden layer, logit.
#[derive(Module, Debug)]
pub struct ValueHead {
    pub project: Linear,
    pub hidden: Linear,
    pub out: Linear,
}

/// What the CNN's heads output for a batch.
pub struct Heads {
    /// Move logits `[batch, 81]`.
    pub policy: Tensor<2>,
    /// Win logit of the side to move `[batch, 1]`, with a value head.
    pub value: Option<Tensor<2>>,
    /// Ownership logits `[batch, 81]` (`tanh` = owner from the mover's view), with an
    /// ownership head.
    pub ownership: Option<Tensor<2>>,
    /// Score lead of the side to move over [`SCORE_SCALE`] `[batch, 1]`, with a score head.
    pub score: Option<Tensor<2>>,
}

/// Two 3x3 convolutions with a skip connection: `relu(x + conv2(relu(conv1(x))))`.
#[derive(Module, Debug)]
pub struct ResBlock {
    pub conv1: Conv2d,
    pub conv2: Conv2d,
}

/// Stem convolution, residual tower, 1x1 head to one logit per point.
#[derive(Module, Debug)]
pub struct Cnn {
    pub stem: Conv2d,
    pub blocks: Vec<ResBlock>,
    pub head: Conv2d,
    pub value: Option<ValueHead>,
    pub ownership: Option<Linear>,
    /// The score head: the value head's hidden layer to one output ([`SCORE_SCALE`]).
    pub score: Option<Linear>,
    activation: Relu,
}

fn conv3(cin: usize, cout: usize, device: &Device) -> Conv2d {
    Conv2dConfig::new([cin, cout], [3, 3])
        .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
        .init(device)
}

impl CnnConfig {
    /// A freshly initialised network on `device`.
    pub fn init(&self, device: &Device) -> Cnn {
        let c = self.channels;
        Cnn {
            stem: conv3(CNN_PLANES, c, device),
            blocks: (0..self.blocks)
                .map(|_| ResBlock {
                    conv1: conv3(c, c, device),
                    conv2: conv3(c, c, device),
                })
                .collect(),
            head: Conv2dConfig::new([c, 1], [1, 1]).init(device),
            value: (self.value_channels > 0).then(|| ValueHead {
                project: LinearConfig::new(c, self.value_channels).init(device),
                hidden: LinearConfig::new(self.value_channels, VALUE_HIDDEN).init(device),
                out: LinearConfig::new(VALUE_HIDDEN, 1).init(device),
            }),
            ownership: self.ownership.then(|| LinearConfig::new(c, 1).init(device)),
            score: (self.score && self.value_channels > 0)
                .then(|| LinearConfig::new(VALUE_HIDDEN, 1).init(device)),
            activation: Relu::new(),
        }
    }

    /// How many weights (biases included) [`CnnConfig::init`] makes: known from the shape
    /// alone, so an import can refuse a network too large before allocating it.
    pub fn weight_count(&self) -> u64 {
        let (c, vc) = (self.channels as u64, self.value_channels as u64);
        let conv3 = |cin: u64, cout: u64| cin * cout * 9 + cout;
        let linear = |i: u64, o: u64| i * o + o;
        let hidden = VALUE_HIDDEN as u64;
        let mut n = conv3(CNN_PLANES as u64, c) + self.blocks as u64 * 2 * conv3(c, c);
        n += c + 1; // the 1x1 move-logit head
        if vc > 0 {
            n += linear(c, vc) + linear(vc, hidden) + linear(hidden, 1);
            if self.score {
                n += linear(hidden, 1);
            }
        }
        if self.ownership {
            n += linear(c, 1);
        }
        n
    }

    /// Whether the network has a head besides the move logits.
    pub fn has_extra_heads(&self) -> bool {
        self.value_channels > 0 || self.ownership || self.score
    }
}

impl Cnn {
    /// A network from its layers, without value or ownership heads (the activation carries
    /// no weights).
    pub fn from_parts(stem: Conv2d, blocks: Vec<ResBlock>, head: Conv2d) -> Cnn {
        Cnn {
            stem,
            blocks,
            head,
            value: None,
            ownership: None,
            score: None,
            activation: Relu::new(),
        }
    }

    /// This network with these value and ownership heads (a tower that learned moves given
    /// fresh heads to learn outcomes).
    pub fn with_heads(self, value: Option<ValueHead>, ownership: Option<Linear>) -> Cnn {
        Cnn {
            value,
            ownership,
            ..self
        }
    }

    /// This network with this score head (it reads the value head's hidden layer).
    pub fn with_score(self, score: Option<Linear>) -> Cnn {
        Cnn { score, ..self }
    }

    /// Move logits: `[batch, planes, 9, 9] -> [batch, 81]` (higher = more likely good).
    /// On burn's CPU backend the convolutions run as matrix products over a few examples at
    /// a time ([`super::boardconv`]); elsewhere as burn's `Conv2d`. Same function either way.
    pub fn forward(&self, input: Tensor<4>) -> Tensor<2> {
        if super::boardconv::uses_board_conv(&input.device()) {
            self.forward_board(input)
        } else {
            self.forward_conv2d(input)
        }
    }

    /// Every head's output for `[batch, planes, 9, 9]` inputs (one pass through the tower).
    pub fn forward_heads(&self, input: Tensor<4>) -> Heads {
        self.heads(input, false)
    }

    /// [`forward_heads`](Self::forward_heads) with the tower and the move head cut from the
    /// gradient: training through it changes only the value and ownership heads (the move
    /// logits are the same numbers).
    pub fn forward_heads_frozen_trunk(&self, input: Tensor<4>) -> Heads {
        self.heads(input, true)
    }

    fn heads(&self, input: Tensor<4>, frozen_trunk: bool) -> Heads {
        if self.value.is_none() && self.ownership.is_none() {
            return Heads {
                policy: self.forward(input),
                value: None,
                ownership: None,
                score: None,
            };
        }
        let (policy, x) = if super::boardconv::uses_board_conv(&input.device()) {
            let x = self.tower_board(input);
            (self.policy_board(x.clone()), x)
        } else {
            let x = self.tower_conv2d(input);
            let [batch, c, _, _] = x.dims();
            let policy = self.policy_conv2d(x.clone());
            (policy, x.reshape([batch, c, NN]).swap_dims(1, 2)) // [batch, 81, c]
        };
        let (policy, x) = if frozen_trunk {
            (policy.detach(), x.detach())
        } else {
            (policy, x)
        };
        let [batch, _, _] = x.dims();
        let hidden = self.value.as_ref().map(|v| {
            let f = self.activation.forward(v.project.forward(x.clone())); // [batch, 81, vc]
            let pooled = f.mean_dim(1).squeeze_dim::<2>(1); // [batch, vc]
            self.activation.forward(v.hidden.forward(pooled)) // [batch, 64]
        });
        let score = match (&self.score, &hidden) {
            (Some(s), Some(h)) => Some(s.forward(h.clone())), // [batch, 1]
            _ => None,
        };
        let value = self
            .value
            .as_ref()
            .zip(hidden)
            .map(|(v, h)| v.out.forward(h)); // [batch, 1]
        let ownership = self
            .ownership
            .as_ref()
            .map(|o| o.forward(x).reshape([batch, NN])); // [batch, 81]
        Heads {
            policy,
            value,
            ownership,
            score,
        }
    }

    /// [`forward`](Self::forward) through burn's `Conv2d` (any backend).
    pub fn forward_conv2d(&self, input: Tensor<4>) -> Tensor<2> {
        self.policy_conv2d(self.tower_conv2d(input))
    }

    /// The residual tower through burn's `Conv2d`: `[batch, c, 9, 9]`.
    fn tower_conv2d(&self, input: Tensor<4>) -> Tensor<4> {
        let mut x = self.activation.forward(self.stem.forward(input)); // [batch, c, 9, 9]
        for b in &self.blocks {
            let y = self.activation.forward(b.conv1.forward(x.clone())); // [batch, c, 9, 9]
            x = self.activation.forward(x + b.conv2.forward(y)); // [batch, c, 9, 9]
        }
        x
    }

    fn policy_conv2d(&self, x: Tensor<4>) -> Tensor<2> {
        let [batch, _, _, _] = x.dims();
        self.head.forward(x).reshape([batch, NN]) // [batch, 81]
    }

    /// [`forward`](Self::forward) with activations `[batch, 81, channels]` and the 3x3
    /// convolutions as [`super::boardconv::board_conv3`] (burn's CPU backend only).
    pub fn forward_board(&self, input: Tensor<4>) -> Tensor<2> {
        self.policy_board(self.tower_board(input))
    }

    /// The residual tower as board convolutions: `[batch, 81, c]`.
    fn tower_board(&self, input: Tensor<4>) -> Tensor<3> {
        let [batch, planes, _, _] = input.dims();
        let conv = |c: &Conv2d, x: Tensor<3>| {
            let bias = c.bias.as_ref().expect("the CNN's convolutions have biases");
            super::boardconv::board_conv3(x, c.weight.val(), bias.val())
        };
        let x = input.reshape([batch, planes, NN]).swap_dims(1, 2); // [batch, 81, planes]
        let mut x = self.activation.forward(conv(&self.stem, x)); // [batch, 81, c]
        for b in &self.blocks {
            let y = self.activation.forward(conv(&b.conv1, x.clone()));
            x = self.activation.forward(x + conv(&b.conv2, y)); // [batch, 81, c]
        }
        x
    }

    /// The 1x1 move head on `[batch, 81, c]` activations: one dot product per point.
    fn policy_board(&self, x: Tensor<3>) -> Tensor<2> {
        let [batch, _, c] = x.dims();
        let w = self.head.weight.val().reshape([c, 1]);
        let bias = self.head.bias.as_ref().expect("the head has a bias").val();
        let logits = x.reshape([batch * NN, c]).matmul(w).reshape([batch, NN]);
        logits + bias.reshape([1, 1]) // [batch, 81]
    }
}

/// Cross-entropy of the played move under a softmax restricted to legal points:
/// `logits` `[batch, 81]`, `illegal` `[batch, 81]` (true = masked out), `played` `[batch, 1]`.
pub fn masked_softmax_loss(
    logits: Tensor<2>,
    illegal: Tensor<2, Bool>,
    played: Tensor<2, Int>,
) -> Tensor<1> {
    let logp = log_softmax(logits.mask_fill(illegal, -1.0e9), 1); // [batch, 81]
    logp.gather(1, played).neg().mean()
}
