//! Our stronger model: a small residual convolutional network over feature planes with one
//! logit per point, trained as a softmax over the legal points (the played move is the class).
//! Badness is `1 - p`. No batch norm, so the plain-Rust export is exact and simple.

use super::encode::CNN_PLANES;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{PaddingConfig2d, Relu};
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
            activation: Relu::new(),
        }
    }
}

impl Cnn {
    /// A network from its layers (the activation carries no weights).
    pub fn from_parts(stem: Conv2d, blocks: Vec<ResBlock>, head: Conv2d) -> Cnn {
        Cnn {
            stem,
            blocks,
            head,
            activation: Relu::new(),
        }
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

    /// [`forward`](Self::forward) through burn's `Conv2d` (any backend).
    pub fn forward_conv2d(&self, input: Tensor<4>) -> Tensor<2> {
        let [batch, _, _, _] = input.dims();
        let mut x = self.activation.forward(self.stem.forward(input)); // [batch, c, 9, 9]
        for b in &self.blocks {
            let y = self.activation.forward(b.conv1.forward(x.clone())); // [batch, c, 9, 9]
            x = self.activation.forward(x + b.conv2.forward(y)); // [batch, c, 9, 9]
        }
        self.head.forward(x).reshape([batch, crate::rules::NN]) // [batch, 81]
    }

    /// [`forward`](Self::forward) with activations `[batch, 81, channels]` and the 3x3
    /// convolutions as [`super::boardconv::board_conv3`] (burn's CPU backend only).
    pub fn forward_board(&self, input: Tensor<4>) -> Tensor<2> {
        use crate::rules::NN;
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
        // the 1x1 head: one dot product per point
        let [_, _, c] = x.dims();
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
