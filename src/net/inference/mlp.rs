//! The paper's network: a multi-layer perceptron from the 81 points (or one-hot planes) to
//! 81 sigmoid outputs, trained with binary cross-entropy against 0 = played, 1 = every other
//! point.

use super::encode::MlpEncoding;
use burn::nn::{Linear, LinearConfig, Relu};
use burn::prelude::*;

/// The MLP's shape.
#[derive(Config, Debug, PartialEq)]
pub struct MlpConfig {
    /// Input encoding: `paper` (81 values 0/1/2) or `one-hot` (own/opponent/empty planes).
    #[config(default = "MlpEncoding::Paper")]
    pub encoding: MlpEncoding,
    /// Widths of the hidden layers, input side first (ReLU after each).
    #[config(default = "vec![256, 256]")]
    pub hidden: Vec<usize>,
    /// Training loss: `bce` (the paper's: sigmoid per point against 0 played / 1 other) or
    /// `softmax` (one softmax over the legal points, the played move is the class).
    #[config(default = "MlpLoss::Bce")]
    pub loss: MlpLoss,
}

/// How the MLP is trained (and so how its outputs become badness).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MlpLoss {
    /// Badness = sigmoid(logit).
    Bce,
    /// Badness = 1 - softmax over legal points (illegal points 1).
    Softmax,
}

/// The MLP module: hidden linear layers with ReLU, then a linear layer to 81 logits.
#[derive(Module, Debug)]
pub struct Mlp {
    pub hidden: Vec<Linear>,
    pub output: Linear,
    activation: Relu,
}

impl MlpConfig {
    /// A freshly initialised network on `device`.
    pub fn init(&self, device: &Device) -> Mlp {
        let mut width = self.encoding.width();
        let mut hidden = Vec::with_capacity(self.hidden.len());
        for &w in &self.hidden {
            hidden.push(LinearConfig::new(width, w).init(device));
            width = w;
        }
        Mlp {
            hidden,
            output: LinearConfig::new(width, crate::rules::NN).init(device),
            activation: Relu::new(),
        }
    }

    /// How many weights (biases included) [`MlpConfig::init`] makes: known from the shape
    /// alone, so an import can refuse a network too large before allocating it.
    pub fn weight_count(&self) -> u64 {
        let mut width = self.encoding.width() as u64;
        let mut n = 0;
        for &w in self.hidden.iter().chain(&[crate::rules::NN]) {
            n += width * w as u64 + w as u64;
            width = w as u64;
        }
        n
    }
}

impl Mlp {
    /// Logits of badness: `[batch, inputs] -> [batch, 81]`; `sigmoid` gives the paper's output.
    pub fn forward(&self, input: Tensor<2>) -> Tensor<2> {
        let mut x = input; // [batch, inputs]
        for layer in &self.hidden {
            x = self.activation.forward(layer.forward(x)); // [batch, width]
        }
        self.output.forward(x) // [batch, 81]
    }
}

/// Mean binary cross-entropy of `sigmoid(logits)` against `targets` (both `[batch, 81]`),
/// written in the stable form `max(z, 0) - z t + ln(1 + e^-|z|)`.
pub fn bce_with_logits(logits: Tensor<2>, targets: Tensor<2>) -> Tensor<1> {
    let pos = logits.clone().clamp_min(0.0);
    let soft = logits.clone().abs().neg().exp().log1p();
    (pos - logits * targets + soft).mean()
}
