//! Plain-Rust evaluators for the trained networks: the search's batch-1 forward pass.
//!
//! Weights are copied out of the burn modules once ([`PlainMlp::from_burn`],
//! [`PlainCnn::from_burn`]); a forward call then does no autodiff bookkeeping and no
//! allocation: every intermediate lives in a caller-owned [`Scratch`] that grows once.

use super::cnn::Cnn;
use super::encode::CNN_PLANES;
use super::mlp::Mlp;
use crate::rules::{N, NN};
use burn::module::Param;
use burn::nn::Linear;
use burn::nn::conv::Conv2d;
use burn::prelude::*;

/// Reusable buffers for forward passes (one per thread).
#[derive(Debug, Default, Clone)]
pub struct Scratch {
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
}

impl Scratch {
    fn ensure(&mut self, len: usize) {
        for v in [&mut self.a, &mut self.b, &mut self.c] {
            if v.len() < len {
                v.resize(len, 0.0);
            }
        }
    }
}

fn tensor_values<const D: usize>(p: &Param<Tensor<D>>) -> Vec<f32> {
    p.val()
        .into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .expect("float parameters convert to f32")
}

/// One dense layer: `out = in · W + b`, `W` stored `[inputs][outputs]` like burn's `Linear`.
#[derive(Debug, Clone)]
struct Dense {
    inputs: usize,
    outputs: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl Dense {
    fn from_burn(l: &Linear) -> Dense {
        let [inputs, outputs] = l.weight.val().dims();
        let bias = l
            .bias
            .as_ref()
            .map(tensor_values)
            .unwrap_or_else(|| vec![0.0; outputs]);
        Dense {
            inputs,
            outputs,
            weight: tensor_values(&l.weight),
            bias,
        }
    }

    /// Row-by-row accumulation: zero inputs (empty points, ReLU zeros) cost nothing.
    #[inline]
    fn forward(&self, input: &[f32], out: &mut [f32]) {
        let out = &mut out[..self.outputs];
        out.copy_from_slice(&self.bias);
        for (i, &x) in input[..self.inputs].iter().enumerate() {
            if x == 0.0 {
                continue;
            }
            let row = &self.weight[i * self.outputs..(i + 1) * self.outputs];
            for (o, &w) in out.iter_mut().zip(row) {
                *o += x * w;
            }
        }
    }
}

/// The MLP without burn.
#[derive(Debug, Clone)]
pub struct PlainMlp {
    layers: Vec<Dense>,
}

impl PlainMlp {
    /// Copies the weights out of a burn MLP.
    pub fn from_burn(m: &Mlp) -> PlainMlp {
        let mut layers: Vec<Dense> = m.hidden.iter().map(Dense::from_burn).collect();
        layers.push(Dense::from_burn(&m.output));
        PlainMlp { layers }
    }

    /// Input width.
    pub fn inputs(&self) -> usize {
        self.layers[0].inputs
    }

    /// The 81 logits for one encoded input.
    pub fn logits(&self, input: &[f32], scratch: &mut Scratch, out: &mut [f32; NN]) {
        let widest = self.layers.iter().map(|l| l.outputs).max().unwrap_or(NN);
        scratch.ensure(widest);
        let (mut cur, mut next) = (&mut scratch.a, &mut scratch.b);
        let last = self.layers.len() - 1;
        for (k, layer) in self.layers.iter().enumerate() {
            let src: &[f32] = if k == 0 { input } else { &cur[..] };
            if k == last {
                layer.forward(src, out);
            } else {
                layer.forward(src, next);
                for v in &mut next[..layer.outputs] {
                    *v = v.max(0.0);
                }
                std::mem::swap(&mut cur, &mut next);
            }
        }
    }

    /// The paper's output: `sigmoid(logits)`, badness in [0, 1].
    pub fn forward(&self, input: &[f32], scratch: &mut Scratch, out: &mut [f32; NN]) {
        self.logits(input, scratch, out);
        for v in out.iter_mut() {
            *v = 1.0 / (1.0 + (-*v).exp());
        }
    }
}

/// Padded plane width: the 9x9 board with a one-point zero border (11x11), so every 3x3 tap
/// is a constant offset and a convolution is a few long vectorisable multiply-adds.
const P: usize = N + 2;
const PP: usize = P * P;
/// First and one-past-last padded index of the interior span.
const LO: usize = P + 1;
const HI: usize = P * N + N + 1;

#[inline]
fn padded(i: usize) -> usize {
    (i / N + 1) * P + i % N + 1
}

/// A 3x3 (or 1x1) convolution with weights `[out][in][k][k]` like burn's `Conv2d`.
#[derive(Debug, Clone)]
struct Conv {
    cin: usize,
    cout: usize,
    k: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl Conv {
    fn from_burn(c: &Conv2d) -> Conv {
        let [cout, cin, k, k2] = c.weight.val().dims();
        assert_eq!(k, k2, "square kernels only");
        let bias = c
            .bias
            .as_ref()
            .map(tensor_values)
            .unwrap_or_else(|| vec![0.0; cout]);
        Conv {
            cin,
            cout,
            k,
            weight: tensor_values(&c.weight),
            bias,
        }
    }

    /// `out = conv(input)` on padded planes; the border of `out` is left zero.
    fn forward(&self, input: &[f32], out: &mut [f32]) {
        let r = (self.k / 2) as isize;
        for oc in 0..self.cout {
            let dst = &mut out[oc * PP..(oc + 1) * PP];
            dst.fill(0.0);
            let span = &mut dst[LO..HI];
            span.fill(self.bias[oc]);
            for ic in 0..self.cin {
                let src = &input[ic * PP..(ic + 1) * PP];
                let wbase = (oc * self.cin + ic) * self.k * self.k;
                for ky in 0..self.k {
                    for kx in 0..self.k {
                        let w = self.weight[wbase + ky * self.k + kx];
                        let off = (ky as isize - r) * P as isize + (kx as isize - r);
                        let s = &src[(LO as isize + off) as usize..(HI as isize + off) as usize];
                        for (d, &x) in span.iter_mut().zip(s) {
                            *d += w * x;
                        }
                    }
                }
            }
            // The span also covers the left/right border columns: clear them again.
            for row in 1..=N {
                dst[row * P] = 0.0;
                dst[row * P + P - 1] = 0.0;
            }
        }
    }
}

/// The CNN without burn.
#[derive(Debug, Clone)]
pub struct PlainCnn {
    stem: Conv,
    blocks: Vec<(Conv, Conv)>,
    head: Conv,
    channels: usize,
}

impl PlainCnn {
    /// Copies the weights out of a burn CNN.
    pub fn from_burn(m: &Cnn) -> PlainCnn {
        let stem = Conv::from_burn(&m.stem);
        PlainCnn {
            channels: stem.cout,
            stem,
            blocks: m
                .blocks
                .iter()
                .map(|b| (Conv::from_burn(&b.conv1), Conv::from_burn(&b.conv2)))
                .collect(),
            head: Conv::from_burn(&m.head),
        }
    }

    /// Move logits (higher = better) for planes as written by
    /// [`cnn_planes`](super::encode::cnn_planes).
    pub fn logits(&self, planes: &[f32], scratch: &mut Scratch, out: &mut [f32; NN]) {
        let c = self.channels.max(CNN_PLANES);
        scratch.ensure(c * PP);
        let Scratch { a, b, c: t } = scratch;
        // Pad the input planes into `a`.
        a[..CNN_PLANES * PP].fill(0.0);
        for pl in 0..CNN_PLANES {
            for i in 0..NN {
                a[pl * PP + padded(i)] = planes[pl * NN + i];
            }
        }
        self.stem.forward(a, b);
        relu(&mut b[..self.channels * PP]);
        for (c1, c2) in &self.blocks {
            c1.forward(b, t);
            relu(&mut t[..self.channels * PP]);
            c2.forward(t, a);
            for (x, &y) in b[..self.channels * PP]
                .iter_mut()
                .zip(&a[..self.channels * PP])
            {
                *x = (*x + y).max(0.0);
            }
        }
        self.head.forward(b, a);
        for (i, o) in out.iter_mut().enumerate() {
            *o = a[padded(i)];
        }
    }

    /// Badness `1 - p` with `p` the softmax over legal points; illegal points get 1.
    pub fn forward(
        &self,
        planes: &[f32],
        legal: &[bool; NN],
        scratch: &mut Scratch,
        out: &mut [f32; NN],
    ) {
        self.logits(planes, scratch, out);
        masked_softmax_badness(legal, out);
    }
}

/// Turns move logits into badness `1 - softmax` over the legal points (illegal: 1).
pub fn masked_softmax_badness(legal: &[bool; NN], v: &mut [f32; NN]) {
    let max = v
        .iter()
        .zip(legal)
        .filter(|(_, l)| **l)
        .map(|(x, _)| *x)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0f32;
    for (x, &l) in v.iter_mut().zip(legal) {
        *x = if l { (*x - max).exp() } else { 0.0 };
        sum += *x;
    }
    for x in v.iter_mut() {
        *x = if sum > 0.0 { 1.0 - *x / sum } else { 1.0 };
    }
}

fn relu(v: &mut [f32]) {
    for x in v {
        *x = x.max(0.0);
    }
}
