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
    d: Vec<f32>,
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
        #[cfg(target_arch = "x86_64")]
        if has_avx2_fma() {
            // SAFETY: the CPU supports AVX2 and FMA (checked at run time).
            unsafe { self.forward_avx2(input, out) };
            return;
        }
        self.forward_portable(input, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2(&self, input: &[f32], out: &mut [f32]) {
        self.forward_portable(input, out);
    }

    #[inline(always)]
    fn forward_portable(&self, input: &[f32], out: &mut [f32]) {
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

/// Whether the wide SIMD paths may run (cached by std after the first call).
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
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

#[inline]
fn padded(i: usize) -> usize {
    (i / N + 1) * P + i % N + 1
}

/// Dot products run over blocks of this many values (four 8-lane accumulators).
const LANES: usize = 32;

/// A 3x3 (or 1x1) convolution with weights `[out][in][k][k]` like burn's `Conv2d`, stored
/// per output channel as one row of `kdim` values (`in * k * k` padded with zeros to a
/// multiple of [`LANES`]) so each output is one dot product with an im2col row.
#[derive(Debug, Clone)]
struct Conv {
    cin: usize,
    cout: usize,
    k: usize,
    kdim: usize,
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
        let raw = tensor_values(&c.weight);
        let per = cin * k * k;
        let kdim = per.div_ceil(LANES) * LANES;
        let mut weight = vec![0.0; cout * kdim];
        for oc in 0..cout {
            weight[oc * kdim..oc * kdim + per].copy_from_slice(&raw[oc * per..(oc + 1) * per]);
        }
        Conv {
            cin,
            cout,
            k,
            kdim,
            weight,
            bias,
        }
    }

    /// Gathers, for every board point, its `in x k x k` neighbourhood from padded planes
    /// (`col` is `[81][kdim]`, zero-padded).
    fn im2col(&self, input: &[f32], col: &mut [f32]) {
        let k = self.k;
        let r = k / 2;
        for i in 0..NN {
            let row = &mut col[i * self.kdim..(i + 1) * self.kdim];
            // Top-left corner of the k x k window in padded coordinates.
            let corner = padded(i) - r * P - r;
            let mut j = 0;
            for ic in 0..self.cin {
                let plane = &input[ic * PP..(ic + 1) * PP];
                if k == 3 {
                    // Fixed-size copies compile to plain moves; a variable-length copy of three
                    // values became a memcpy call costing more than the copy itself.
                    for ky in 0..3 {
                        let start = corner + ky * P;
                        let src: &[f32; 3] = plane[start..start + 3].try_into().expect("3");
                        let dst: &mut [f32; 3] = (&mut row[j..j + 3]).try_into().expect("3");
                        *dst = *src;
                        j += 3;
                    }
                } else {
                    for ky in 0..k {
                        let start = corner + ky * P;
                        row[j..j + k].copy_from_slice(&plane[start..start + k]);
                        j += k;
                    }
                }
            }
            row[j..].fill(0.0);
        }
    }

    /// `out = conv(input)` on padded planes (borders of `out` left zero); `col` is scratch.
    fn forward(&self, input: &[f32], col: &mut [f32], out: &mut [f32]) {
        self.im2col(input, col);
        out[..self.cout * PP].fill(0.0);
        #[cfg(target_arch = "x86_64")]
        if has_avx2_fma() {
            // SAFETY: the CPU supports AVX2 and FMA (checked at run time).
            unsafe { self.dots_avx2(col, out) };
            return;
        }
        self.dots(col, out);
    }

    /// AVX2/FMA kernel, register-blocked: 4 output channels x 2 points per pass (eight
    /// 8-lane accumulators), so each loaded value feeds two or four fused multiply-adds.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn dots_avx2(&self, col: &[f32], out: &mut [f32]) {
        use std::arch::x86_64::*;
        let kd = self.kdim;
        if self.cout % 4 != 0 {
            return self.dots(col, out);
        }
        // The raw-pointer reads below stay inside these bounds.
        assert!(kd % 8 == 0 && col.len() >= NN * kd && self.weight.len() >= self.cout * kd);
        let hsum = |v: __m256| {
            let mut t = [0f32; 8];
            // SAFETY: `t` holds 8 floats.
            unsafe { _mm256_storeu_ps(t.as_mut_ptr(), v) };
            t.iter().sum::<f32>()
        };
        for oc in (0..self.cout).step_by(4) {
            // SAFETY (all pointer arithmetic below): rows `oc..oc + 4` of `weight` and rows
            // `p`, `p + 1` (< 81) of `col` are `kd` long and inside the asserted lengths.
            let wp = unsafe { self.weight.as_ptr().add(oc * kd) };
            let mut p = 0;
            while p < NN {
                let pair = p + 1 < NN;
                let x0 = unsafe { col.as_ptr().add(p * kd) };
                let x1 = if pair {
                    unsafe { col.as_ptr().add((p + 1) * kd) }
                } else {
                    x0
                };
                let mut acc = [_mm256_setzero_ps(); 8];
                let mut s = 0;
                while s < kd {
                    let (xa, xb) =
                        unsafe { (_mm256_loadu_ps(x0.add(s)), _mm256_loadu_ps(x1.add(s))) };
                    for j in 0..4 {
                        let w = unsafe { _mm256_loadu_ps(wp.add(j * kd + s)) };
                        acc[j] = _mm256_fmadd_ps(w, xa, acc[j]);
                        acc[4 + j] = _mm256_fmadd_ps(w, xb, acc[4 + j]);
                    }
                    s += 8;
                }
                for j in 0..4 {
                    let bias = self.bias[oc + j];
                    out[(oc + j) * PP + padded(p)] = bias + hsum(acc[j]);
                    if pair {
                        out[(oc + j) * PP + padded(p + 1)] = bias + hsum(acc[4 + j]);
                    }
                }
                p += 2;
            }
        }
    }

    #[inline(always)]
    fn dots(&self, col: &[f32], out: &mut [f32]) {
        for i in 0..NN {
            let x = &col[i * self.kdim..(i + 1) * self.kdim];
            let at = padded(i);
            for oc in 0..self.cout {
                let w = &self.weight[oc * self.kdim..(oc + 1) * self.kdim];
                out[oc * PP + at] = self.bias[oc] + dot(w, x);
            }
        }
    }
}

/// A dot product over whole [`LANES`] blocks with independent accumulators, a shape the
/// compiler vectorises without reassociating floating-point sums.
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; LANES];
    for (x, y) in a.chunks_exact(LANES).zip(b.chunks_exact(LANES)) {
        for l in 0..LANES {
            acc[l] += x[l] * y[l];
        }
    }
    acc.iter().sum()
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
        let kdim = std::iter::once(&self.stem)
            .chain(self.blocks.iter().flat_map(|(a, b)| [a, b]))
            .chain(std::iter::once(&self.head))
            .map(|l| l.kdim)
            .max()
            .unwrap_or(0);
        scratch.ensure((c * PP).max(NN * kdim));
        if scratch.d.len() < c * PP {
            scratch.d.resize(c * PP, 0.0);
        }
        let Scratch { a, b, c: col, d: t } = scratch;
        // Pad the input planes into `a`.
        a[..CNN_PLANES * PP].fill(0.0);
        for pl in 0..CNN_PLANES {
            for i in 0..NN {
                a[pl * PP + padded(i)] = planes[pl * NN + i];
            }
        }
        let live = self.channels * PP;
        self.stem.forward(a, col, b);
        relu(&mut b[..live]);
        for (c1, c2) in &self.blocks {
            c1.forward(b, col, t);
            relu(&mut t[..live]);
            c2.forward(t, col, a);
            for (x, &y) in b[..live].iter_mut().zip(&a[..live]) {
                *x = (*x + y).max(0.0);
            }
        }
        self.head.forward(b, col, a);
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
