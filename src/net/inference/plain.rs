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
    pub(super) a: Vec<f32>,
    pub(super) b: Vec<f32>,
    pub(super) c: Vec<f32>,
    pub(super) d: Vec<f32>,
    /// The padded interior points of the boards of the last batch.
    pub(super) points: Vec<usize>,
    /// The 8-bit evaluator's quantized activations and their per-board scales.
    pub(super) quant: super::quant::QuantActs,
    /// The value head's per-point features, pooled features and hidden layer.
    pub(super) value: Vec<f32>,
}

impl Scratch {
    pub(super) fn ensure(&mut self, len: usize) {
        for v in [&mut self.a, &mut self.b, &mut self.c] {
            if v.len() < len {
                v.resize(len, 0.0);
            }
        }
    }
}

fn tensor_values<const D: usize>(p: &Param<Tensor<D>>) -> Vec<f32> {
    float_values(p.val())
}

/// A float tensor's values as `f32`, row-major (burn's order).
pub(crate) fn float_values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .expect("float tensors convert to f32")
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

/// Whether AVX2 may run at all: not where `AKUSHU_NO_AVX2` is set, which leaves every
/// network on its portable loops (to measure them as a CPU without AVX2, an aarch64 one,
/// would run them). Read once.
#[cfg(target_arch = "x86_64")]
pub(super) fn avx2_allowed() -> bool {
    static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OK.get_or_init(|| std::env::var_os("AKUSHU_NO_AVX2").is_none())
}

/// Whether the wide SIMD paths may run: AVX2 and FMA, and AVX2 allowed ([`avx2_allowed`]).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn has_avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && avx2_allowed()
}

/// AVX-512F, unless `AKUSHU_NO_AVX512` is set (to compare the kernels, or where the wider
/// unit lowers the clock) or AVX2 is not allowed.
#[cfg(target_arch = "x86_64")]
pub(super) fn has_avx512() -> bool {
    static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OK.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::env::var_os("AKUSHU_NO_AVX512").is_none()
            && avx2_allowed()
    })
}

/// The float kernel [`PlainCnn`]'s convolutions run on this CPU:
/// `avx512`, `avx2` or `portable` (for benchmarks to print next to their figures).
pub fn float_kernel_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx512() {
            return "avx512";
        }
        if has_avx2_fma() {
            return "avx2";
        }
    }
    "portable"
}

/// The float kernel of the dense layers (the MLPs and the heads): `avx2` or `portable`
/// (they have no AVX-512 path).
pub fn dense_kernel_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        return "avx2";
    }
    "portable"
}

/// Both network kernels this CPU runs, for a benchmark's header:
/// `8-bit vnni, float avx512` (see [`super::quant::kernel_name`] and [`float_kernel_name`]).
pub fn kernels_in_use() -> String {
    format!(
        "8-bit {}, float {}",
        super::quant::kernel_name(),
        float_kernel_name()
    )
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
/// is a constant offset from the centre point and needs no edge test.
pub(super) const P: usize = N + 2;
pub(super) const PP: usize = P * P;

/// Board point `i` (0..81) in padded coordinates.
#[inline]
pub(super) const fn padded(i: usize) -> usize {
    (i / N + 1) * P + i % N + 1
}

/// The 81 board points in padded coordinates, in board order.
pub(super) const INTERIOR: [usize; NN] = {
    let mut a = [0; NN];
    let mut i = 0;
    while i < NN {
        a[i] = padded(i);
        i += 1;
    }
    a
};

/// Zeroes the border points of a channels-last padded buffer with `c` channels. Borders are
/// never written by a convolution, but a buffer may have held another layout before.
pub(super) fn zero_border(buf: &mut [f32], c: usize) {
    // Row 0 and the left border point of row 1 are contiguous, then each right/left border
    // pair (row r, col 10 and row r + 1, col 0), then the last row's lead-in and row 10.
    buf[..(P + 1) * c].fill(0.0);
    for r in 1..P - 2 {
        let q = r * P + P - 1;
        buf[q * c..(q + 2) * c].fill(0.0);
    }
    buf[((P - 2) * P + P - 1) * c..PP * c].fill(0.0);
}

/// What a convolution does with its sums before storing them.
#[derive(Debug, Clone, Copy)]
pub(super) enum Epilogue<'a> {
    /// Store as is.
    Linear,
    /// Store `max(sum, 0)`.
    Relu,
    /// Store `max(sum + skip, 0)`: the residual connection, `skip` in the output's layout.
    AddRelu(&'a [f32]),
}

/// A `k x k` convolution (stride 1, same padding) on channels-last padded activations
/// (`[121][channels]`, borders zero).
///
/// Burn's weights `[out][in][ky][kx]` are transposed at load time to `[tap][in][out]`, so the
/// innermost loop runs over contiguous output channels: each input value, broadcast, is
/// multiply-added into a whole row of output sums, and the convolution is `k * k` shifted
/// matrix-vector products with no im2col copy and no horizontal sums.
#[derive(Debug, Clone)]
pub(super) struct Conv {
    pub(super) cin: usize,
    pub(super) cout: usize,
    /// `[tap][in][out]`.
    pub(super) weight: Vec<f32>,
    pub(super) bias: Vec<f32>,
    /// Padded-point offset of each tap from the window's top-left corner.
    pub(super) taps: Vec<usize>,
    /// Padded-point distance from a window's centre back to its top-left corner.
    pub(super) back: usize,
}

impl Conv {
    fn from_burn(c: &Conv2d) -> Conv {
        let [cout, cin, k, k2] = c.weight.val().dims();
        assert_eq!(k, k2, "square kernels only");
        assert!(
            k % 2 == 1 && k <= 3,
            "1x1 or 3x3 kernels (one-point padding)"
        );
        let bias = c
            .bias
            .as_ref()
            .map(tensor_values)
            .unwrap_or_else(|| vec![0.0; cout]);
        Conv::from_raw(cin, cout, k, &tensor_values(&c.weight), bias)
    }

    /// From weights in burn's `[out][in][ky][kx]` order.
    pub(super) fn from_raw(cin: usize, cout: usize, k: usize, raw: &[f32], bias: Vec<f32>) -> Conv {
        assert_eq!(raw.len(), cout * cin * k * k);
        assert_eq!(bias.len(), cout);
        let mut weight = vec![0.0; raw.len()];
        for oc in 0..cout {
            for ic in 0..cin {
                for t in 0..k * k {
                    weight[(t * cin + ic) * cout + oc] = raw[(oc * cin + ic) * k * k + t];
                }
            }
        }
        let r = k / 2;
        Conv {
            cin,
            cout,
            weight,
            bias,
            taps: (0..k * k).map(|t| (t / k) * P + t % k).collect(),
            back: r * P + r,
        }
    }

    /// `out = epilogue(conv(input))` on the padded points `points` (the 81 interior points of
    /// one board, or of several boards stacked `PP` points apart); borders are untouched.
    pub(super) fn forward(
        &self,
        input: &[f32],
        out: &mut [f32],
        epi: Epilogue<'_>,
        points: &[usize],
    ) {
        let boards = points.last().map_or(0, |&q| q / PP + 1);
        assert!(input.len() >= boards * PP * self.cin && out.len() >= boards * PP * self.cout);
        if let Epilogue::AddRelu(skip) = epi {
            assert!(skip.len() >= boards * PP * self.cout);
        }
        assert!(
            points
                .iter()
                .all(|&q| q % PP >= self.back && q % PP + self.back < PP)
        );
        #[cfg(target_arch = "x86_64")]
        if self.cout.is_multiple_of(16) && has_avx512() {
            // SAFETY: the CPU supports AVX-512F (checked at run time); lengths and point
            // ranges asserted above.
            unsafe { self.forward_avx512(input, out, epi, points) };
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.cout.is_multiple_of(8) && has_avx2_fma() {
            // SAFETY: the CPU supports AVX2 and FMA (checked at run time); lengths asserted.
            unsafe { self.forward_avx2(input, out, epi, points) };
            return;
        }
        if self.cout == 1 {
            self.forward_single(input, out, epi, points);
            return;
        }
        self.forward_portable(input, out, epi, points);
    }

    /// One output channel (the move-logit head): eight points at a time, each point's sum
    /// in the portable path's order (tap, then input channel), so the eight independent sums
    /// keep the adder busy where one sum waits on its own last add, and the result is the
    /// portable path's to the bit (a skipped zero input adds zero there).
    fn forward_single(&self, input: &[f32], out: &mut [f32], epi: Epilogue<'_>, points: &[usize]) {
        const W: usize = 8;
        let cin = self.cin;
        for group in points.chunks(W) {
            let mut acc = [self.bias[0]; W];
            for (t, &tap) in self.taps.iter().enumerate() {
                let w = &self.weight[t * cin..(t + 1) * cin];
                let rows: [&[f32]; W] = std::array::from_fn(|j| {
                    let at = group[j.min(group.len() - 1)] - self.back + tap;
                    &input[at * cin..(at + 1) * cin]
                });
                for (ic, &wv) in w.iter().enumerate() {
                    for j in 0..W {
                        acc[j] += rows[j][ic] * wv;
                    }
                }
            }
            for (&q, &a) in group.iter().zip(&acc) {
                out[q] = match epi {
                    Epilogue::Linear => a,
                    Epilogue::Relu => a.max(0.0),
                    Epilogue::AddRelu(skip) => (a + skip[q]).max(0.0),
                };
            }
        }
    }

    /// Any CPU, any channel count: one output row per point, zero inputs skipped (the input
    /// planes are mostly zero, so are half the ReLU outputs).
    fn forward_portable(
        &self,
        input: &[f32],
        out: &mut [f32],
        epi: Epilogue<'_>,
        points: &[usize],
    ) {
        let (cin, cout) = (self.cin, self.cout);
        for &q in points {
            let o = &mut out[q * cout..(q + 1) * cout];
            o.copy_from_slice(&self.bias);
            let corner = q - self.back;
            for (t, &tap) in self.taps.iter().enumerate() {
                let at = corner + tap;
                let x = &input[at * cin..(at + 1) * cin];
                let w = &self.weight[t * cin * cout..(t + 1) * cin * cout];
                for (&xv, row) in x.iter().zip(w.chunks_exact(cout)) {
                    if xv == 0.0 {
                        continue;
                    }
                    for (a, &b) in o.iter_mut().zip(row) {
                        *a += xv * b;
                    }
                }
            }
            match epi {
                Epilogue::Linear => {}
                Epilogue::Relu => relu(o),
                Epilogue::AddRelu(skip) => {
                    for (a, &s) in o.iter_mut().zip(&skip[q * cout..(q + 1) * cout]) {
                        *a = (*a + s).max(0.0);
                    }
                }
            }
        }
    }

    /// AVX2/FMA: output channels in chunks of up to 32 (four 8-lane registers), two points
    /// per pass, so each weight load feeds two fused multiply-adds and nothing is reduced
    /// horizontally. `cout` must be a multiple of 8.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2(
        &self,
        input: &[f32],
        out: &mut [f32],
        epi: Epilogue<'_>,
        points: &[usize],
    ) {
        let mut o0 = 0;
        while o0 < self.cout {
            // SAFETY (all four): AVX2/FMA present (caller), chunk inside `cout`.
            o0 += match (self.cout - o0) / 8 {
                1 => unsafe { self.chunk_avx2::<1>(input, out, epi, o0, points) },
                2 => unsafe { self.chunk_avx2::<2>(input, out, epi, o0, points) },
                3 => unsafe { self.chunk_avx2::<3>(input, out, epi, o0, points) },
                _ => unsafe { self.chunk_avx2::<4>(input, out, epi, o0, points) },
            };
        }
    }

    /// Output channels `o0..o0 + 8 * V` of every point; returns `8 * V`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn chunk_avx2<const V: usize>(
        &self,
        input: &[f32],
        out: &mut [f32],
        epi: Epilogue<'_>,
        o0: usize,
        points: &[usize],
    ) -> usize {
        use std::arch::x86_64::*;
        let (cin, cout) = (self.cin, self.cout);
        let n = points.len();
        debug_assert!(o0 + 8 * V <= cout);
        // SAFETY (pointer arithmetic below): every window point `q - back + tap` is inside the
        // padded board, so reads stay within `input[..PP * cin]` (asserted by `forward`);
        // weight reads stay within `[tap][in][o0..o0 + 8V]`; writes and skip reads within
        // `[q][o0..o0 + 8V]` of `PP * cout` values (asserted by `forward`).
        let wbase = unsafe { self.weight.as_ptr().add(o0) };
        let bias = unsafe { self.bias.as_ptr().add(o0) };
        let finish = |acc: [__m256; V], q: usize, out: &mut [f32]| {
            let zero = _mm256_setzero_ps();
            for (v, &a) in acc.iter().enumerate() {
                let at = q * cout + o0 + 8 * v;
                let r = match epi {
                    Epilogue::Linear => a,
                    Epilogue::Relu => _mm256_max_ps(a, zero),
                    Epilogue::AddRelu(skip) => _mm256_max_ps(
                        _mm256_add_ps(a, unsafe { _mm256_loadu_ps(&skip[at]) }),
                        zero,
                    ),
                };
                unsafe { _mm256_storeu_ps(out.as_mut_ptr().add(at), r) };
            }
        };
        let mut k = 0;
        while k < n {
            // The odd last point is computed twice and stored once.
            let (q0, q1) = (points[k], points[(k + 1).min(n - 1)]);
            let mut a0 = [_mm256_setzero_ps(); V];
            for (v, a) in a0.iter_mut().enumerate() {
                *a = unsafe { _mm256_loadu_ps(bias.add(8 * v)) };
            }
            let mut a1 = a0;
            for (t, &tap) in self.taps.iter().enumerate() {
                let x0 = unsafe { input.as_ptr().add((q0 - self.back + tap) * cin) };
                let x1 = unsafe { input.as_ptr().add((q1 - self.back + tap) * cin) };
                let wt = unsafe { wbase.add(t * cin * cout) };
                for ic in 0..cin {
                    let (b0, b1) = unsafe {
                        (
                            _mm256_broadcast_ss(&*x0.add(ic)),
                            _mm256_broadcast_ss(&*x1.add(ic)),
                        )
                    };
                    let w = unsafe { wt.add(ic * cout) };
                    for v in 0..V {
                        let wv = unsafe { _mm256_loadu_ps(w.add(8 * v)) };
                        a0[v] = _mm256_fmadd_ps(wv, b0, a0[v]);
                        a1[v] = _mm256_fmadd_ps(wv, b1, a1[v]);
                    }
                }
            }
            finish(a0, q0, out);
            if k + 1 < n {
                finish(a1, q1, out);
            }
            k += 2;
        }
        8 * V
    }

    /// AVX-512: output channels in chunks of 16 or 32 (one or two 16-lane registers), four
    /// points per pass, so each weight load feeds four fused multiply-adds. `cout` must be a
    /// multiple of 16.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn forward_avx512(
        &self,
        input: &[f32],
        out: &mut [f32],
        epi: Epilogue<'_>,
        points: &[usize],
    ) {
        let mut o0 = 0;
        while o0 < self.cout {
            // SAFETY (both): AVX-512F present (caller), chunk inside `cout`.
            o0 += if self.cout - o0 >= 32 {
                unsafe { self.chunk_avx512::<2>(input, out, epi, o0, points) }
            } else {
                unsafe { self.chunk_avx512::<1>(input, out, epi, o0, points) }
            };
        }
    }

    /// Output channels `o0..o0 + 16 * V` of every point in `points`; returns `16 * V`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn chunk_avx512<const V: usize>(
        &self,
        input: &[f32],
        out: &mut [f32],
        epi: Epilogue<'_>,
        o0: usize,
        points: &[usize],
    ) -> usize {
        use std::arch::x86_64::*;
        const R: usize = 4;
        let (cin, cout) = (self.cin, self.cout);
        let n = points.len();
        debug_assert!(o0 + 16 * V <= cout);
        // SAFETY (pointer arithmetic below): as in `chunk_avx2`: every window point of every
        // listed point lies in its board's padded square (asserted by `forward`), weight reads
        // stay within `[tap][in][o0..o0 + 16V]`, writes and skip reads within each point's
        // `[o0..o0 + 16V]`.
        let wbase = unsafe { self.weight.as_ptr().add(o0) };
        let bias = unsafe { self.bias.as_ptr().add(o0) };
        let finish = |acc: &[__m512; V], q: usize, out: &mut [f32]| {
            let zero = _mm512_setzero_ps();
            for (v, &a) in acc.iter().enumerate() {
                let at = q * cout + o0 + 16 * v;
                let r = match epi {
                    Epilogue::Linear => a,
                    Epilogue::Relu => _mm512_max_ps(a, zero),
                    Epilogue::AddRelu(skip) => _mm512_max_ps(
                        _mm512_add_ps(a, unsafe { _mm512_loadu_ps(skip.as_ptr().add(at)) }),
                        zero,
                    ),
                };
                unsafe { _mm512_storeu_ps(out.as_mut_ptr().add(at), r) };
            }
        };
        let mut k = 0;
        while k < n {
            // A short last group repeats its last point and stores only the real ones.
            let q: [usize; R] = std::array::from_fn(|r| points[(k + r).min(n - 1)]);
            let mut acc = [[_mm512_setzero_ps(); V]; R];
            for (v, a) in acc[0].iter_mut().enumerate() {
                *a = unsafe { _mm512_loadu_ps(bias.add(16 * v)) };
            }
            for r in 1..R {
                acc[r] = acc[0];
            }
            for (t, &tap) in self.taps.iter().enumerate() {
                let x: [*const f32; R] = std::array::from_fn(|r| unsafe {
                    input.as_ptr().add((q[r] - self.back + tap) * cin)
                });
                let wt = unsafe { wbase.add(t * cin * cout) };
                for ic in 0..cin {
                    let w = unsafe { wt.add(ic * cout) };
                    let wv: [__m512; V] =
                        std::array::from_fn(|v| unsafe { _mm512_loadu_ps(w.add(16 * v)) });
                    for r in 0..R {
                        let b = _mm512_set1_ps(unsafe { *x[r].add(ic) });
                        for v in 0..V {
                            acc[r][v] = _mm512_fmadd_ps(wv[v], b, acc[r][v]);
                        }
                    }
                }
            }
            for r in 0..R.min(n - k) {
                finish(&acc[r], q[r], out);
            }
            k += R;
        }
        16 * V
    }
}

/// The CNN's value head without burn (see [`super::cnn`]).
#[derive(Debug, Clone)]
pub(super) struct PlainValue {
    project: Dense,
    hidden: Dense,
    out: Dense,
}

impl PlainValue {
    fn from_burn(v: &super::cnn::ValueHead) -> PlainValue {
        PlainValue {
            project: Dense::from_burn(&v.project),
            hidden: Dense::from_burn(&v.hidden),
            out: Dense::from_burn(&v.out),
        }
    }

    /// The win logit of each board whose tower output `x` holds channels-last (`c` per
    /// point) at `points` (81 per board): ReLU of the per-point projection, mean over the
    /// points, hidden layer with ReLU, logit.
    fn logits(&self, x: &[f32], c: usize, points: &[usize], buf: &mut Vec<f32>, out: &mut [f32]) {
        for (o, board) in out.iter_mut().zip(points.chunks_exact(NN)) {
            let h = self.hidden_layer(x, c, board, buf);
            let mut logit = [0f32];
            self.out.forward(h, &mut logit);
            *o = logit[0];
        }
    }

    /// The hidden layer (after its ReLU) of one board whose 81 points are `board`: what the
    /// win logit and the score head read. Lives in the tail of `buf`.
    fn hidden_layer<'b>(
        &self,
        x: &[f32],
        c: usize,
        board: &[usize],
        buf: &'b mut Vec<f32>,
    ) -> &'b [f32] {
        let vc = self.project.outputs;
        let hidden = self.hidden.outputs;
        buf.resize(2 * vc + hidden, 0.0);
        let (feat, rest) = buf.split_at_mut(vc);
        let (pooled, h) = rest.split_at_mut(vc);
        pooled.fill(0.0);
        for &q in board {
            self.project.forward(&x[q * c..(q + 1) * c], feat);
            for (p, &f) in pooled.iter_mut().zip(feat.iter()) {
                *p += f.max(0.0);
            }
        }
        for p in pooled.iter_mut() {
            *p /= NN as f32;
        }
        self.hidden.forward(pooled, h);
        for v in h.iter_mut() {
            *v = v.max(0.0);
        }
        h
    }
}

/// The win probability of a value logit.
#[inline]
pub fn win_probability(logit: f32) -> f32 {
    1.0 / (1.0 + (-logit).exp())
}

/// The CNN without burn.
#[derive(Debug, Clone)]
pub struct PlainCnn {
    pub(super) stem: Conv,
    pub(super) blocks: Vec<(Conv, Conv)>,
    pub(super) head: Conv,
    pub(super) channels: usize,
    /// The value head, if the network has one.
    pub(super) value: Option<PlainValue>,
    /// The ownership head (one logit per point from the tower's features), if the network
    /// has one: read only for analysis answers ([`ownership`](Self::ownership)), so it never
    /// runs on the search's hot path.
    ownership: Option<Dense>,
    /// The score head (the value head's hidden layer to the scaled lead), if the network has
    /// one: like ownership, read only for analysis answers.
    score: Option<Dense>,
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
            value: m.value.as_ref().map(PlainValue::from_burn),
            ownership: m.ownership.as_ref().map(Dense::from_burn),
            score: m.score.as_ref().map(Dense::from_burn),
        }
    }

    /// Whether the network has a score head.
    pub fn has_score(&self) -> bool {
        self.score.is_some()
    }

    /// The score head's lead for the side to move, in points, for one position's planes;
    /// `None` without the head. In float, as [`ownership`](Self::ownership).
    pub fn score_lead(&self, planes: &[f32], scratch: &mut Scratch) -> Option<f32> {
        let (head, value) = (self.score.as_ref()?, self.value.as_ref()?);
        let mut logits = [0f32; NN];
        self.evaluate_batch(planes, 1, scratch, &mut logits, None);
        // `evaluate_batch` leaves the tower's output in `scratch.b`, channels-last.
        let mut buf = std::mem::take(&mut scratch.value);
        let h = value.hidden_layer(&scratch.b, self.channels, &scratch.points[..NN], &mut buf);
        let mut lead = [0f32];
        head.forward(h, &mut lead);
        scratch.value = buf;
        Some(lead[0] * super::cnn::SCORE_SCALE)
    }

    /// Whether the network has an ownership head.
    pub fn has_ownership(&self) -> bool {
        self.ownership.is_some()
    }

    /// Each point's expected final owner from the side to move's view (-1..=1, `tanh` of
    /// the ownership head, as trained) for one position's planes; `None` without the head.
    /// The tower runs in float: analysis asks for a few positions, not the search.
    pub fn ownership(&self, planes: &[f32], scratch: &mut Scratch) -> Option<[f32; NN]> {
        let head = self.ownership.as_ref()?;
        let mut logits = [0f32; NN];
        self.evaluate_batch(planes, 1, scratch, &mut logits, None);
        // `evaluate_batch` leaves the tower's output in `scratch.b`, channels-last.
        let c = self.channels;
        let mut out = [0f32; NN];
        for (o, &q) in out.iter_mut().zip(&scratch.points[..NN]) {
            let mut logit = [0f32];
            head.forward(&scratch.b[q * c..(q + 1) * c], &mut logit);
            *o = logit[0].tanh();
        }
        Some(out)
    }

    /// Whether the network has a value head.
    pub fn has_value(&self) -> bool {
        self.value.is_some()
    }

    /// Move logits (higher = better) for planes as written by
    /// [`cnn_planes`](super::encode::cnn_planes).
    pub fn logits(&self, planes: &[f32], scratch: &mut Scratch, out: &mut [f32; NN]) {
        self.logits_batch(planes, 1, scratch, out);
    }

    /// Sizes `scratch` for `n` boards, writes the input planes channels-last and padded into
    /// `scratch.d`, zeroes the activation buffers' borders and lists the boards' interior
    /// points in `scratch.points`: the setup every forward pass of the tower shares.
    pub(super) fn prepare(&self, planes: &[f32], n: usize, scratch: &mut Scratch) {
        assert!(planes.len() >= n * CNN_PLANES * NN);
        let c = self.channels;
        scratch.ensure(n * PP * c.max(CNN_PLANES));
        if scratch.d.len() < n * PP * CNN_PLANES {
            scratch.d.resize(n * PP * CNN_PLANES, 0.0);
        }
        if scratch.points.len() != n * NN {
            scratch.points = (0..n)
                .flat_map(|b| INTERIOR.iter().map(move |&q| b * PP + q))
                .collect();
        }
        let x = &mut scratch.d;
        x[..n * PP * CNN_PLANES].fill(0.0);
        for (board, input) in planes.chunks_exact(CNN_PLANES * NN).take(n).enumerate() {
            let xb = &mut x[board * PP * CNN_PLANES..];
            for (pl, plane) in input.chunks_exact(NN).enumerate() {
                for (&q, &v) in INTERIOR.iter().zip(plane) {
                    xb[q * CNN_PLANES + pl] = v;
                }
            }
        }
        for buf in [&mut scratch.a, &mut scratch.b, &mut scratch.c] {
            for board in buf.chunks_exact_mut(PP * c).take(n) {
                zero_border(board, c);
            }
        }
    }

    /// Move logits of `n` positions at once: `planes` holds `n` inputs one after another
    /// (`n * 14 * 81` values), `out` receives `n * 81` logits. The boards are stacked in one
    /// buffer and every convolution runs over all `n * 81` points in one pass, so its weights
    /// are loaded once per group of points rather than once per position.
    pub fn logits_batch(&self, planes: &[f32], n: usize, scratch: &mut Scratch, out: &mut [f32]) {
        self.evaluate_batch(planes, n, scratch, out, None);
    }

    /// [`logits_batch`](Self::logits_batch), and with `values` (`n` of them) each position's
    /// win logit for the side to move from the value head (NaN without one).
    pub fn evaluate_batch(
        &self,
        planes: &[f32],
        n: usize,
        scratch: &mut Scratch,
        out: &mut [f32],
        values: Option<&mut [f32]>,
    ) {
        assert!(out.len() >= n * NN);
        self.prepare(planes, n, scratch);
        let Scratch {
            a,
            b,
            c: t,
            d: x,
            points,
            ..
        } = scratch;
        // `b` holds the tower's running activation, `t` the block's middle, `a` its output.
        self.stem.forward(x, b, Epilogue::Relu, points);
        for (c1, c2) in &self.blocks {
            c1.forward(b, t, Epilogue::Relu, points);
            c2.forward(t, a, Epilogue::AddRelu(b), points);
            std::mem::swap(a, b);
        }
        self.heads(scratch, n, out, values);
    }

    /// The move logits (and value logits) from the tower's output in `scratch.b`: the part
    /// the float and 8-bit evaluators share.
    pub(super) fn heads(
        &self,
        scratch: &mut Scratch,
        n: usize,
        out: &mut [f32],
        values: Option<&mut [f32]>,
    ) {
        let Scratch {
            a,
            b,
            points,
            value,
            ..
        } = scratch;
        self.head.forward(b, a, Epilogue::Linear, points);
        let hc = self.head.cout;
        for (o, &q) in out.iter_mut().zip(points.iter()) {
            *o = a[q * hc];
        }
        if let Some(values) = values {
            let values = &mut values[..n];
            match &self.value {
                Some(v) => v.logits(b, self.channels, &points[..n * NN], value, values),
                None => values.fill(f32::NAN),
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::FastRng;

    /// A value in [-1, 1), zero with probability `zeros` (like one-hot planes and ReLU outputs).
    fn value(rng: &mut FastRng, zeros: f64) -> f32 {
        if rng.unit() < zeros {
            0.0
        } else {
            (rng.unit() * 2.0 - 1.0) as f32
        }
    }

    /// Direct convolution of planar `[in][81]` input with burn-ordered `[out][in][ky][kx]`
    /// weights and zero padding: the reference for both fast paths. Returns `[out][81]`.
    fn reference(
        cin: usize,
        cout: usize,
        k: usize,
        raw: &[f32],
        bias: &[f32],
        x: &[f32],
    ) -> Vec<f32> {
        let r = (k / 2) as isize;
        let mut y = vec![0.0; cout * NN];
        for oc in 0..cout {
            for i in 0..NN {
                let (row, col) = ((i / N) as isize, (i % N) as isize);
                let mut s = f64::from(bias[oc]);
                for ic in 0..cin {
                    for ky in 0..k {
                        for kx in 0..k {
                            let (yy, xx) = (row + ky as isize - r, col + kx as isize - r);
                            if (0..N as isize).contains(&yy) && (0..N as isize).contains(&xx) {
                                let w = raw[((oc * cin + ic) * k + ky) * k + kx];
                                let v = x[ic * NN + (yy as usize) * N + xx as usize];
                                s += f64::from(w) * f64::from(v);
                            }
                        }
                    }
                }
                y[oc * NN + i] = s as f32;
            }
        }
        y
    }

    /// Planar `[c][81]` to channels-last padded `[121][c]` with zero borders.
    fn to_padded(x: &[f32], c: usize) -> Vec<f32> {
        let mut p = vec![0.0; PP * c];
        for ch in 0..c {
            for i in 0..NN {
                p[padded(i) * c + ch] = x[ch * NN + i];
            }
        }
        p
    }

    #[test]
    fn the_single_channel_head_equals_the_portable_path_exactly() {
        let mut rng = FastRng::new(5);
        for (cin, k) in [(32, 1), (64, 1), (14, 3)] {
            let raw: Vec<f32> = (0..cin * k * k).map(|_| value(&mut rng, 0.0)).collect();
            let conv = Conv::from_raw(cin, 1, k, &raw, vec![value(&mut rng, 0.0)]);
            let x: Vec<f32> = (0..cin * NN).map(|_| value(&mut rng, 0.5)).collect();
            let xp = to_padded(&x, cin);
            let skip = to_padded(
                &(0..NN).map(|_| value(&mut rng, 0.0)).collect::<Vec<_>>(),
                1,
            );
            for epi in [Epilogue::Linear, Epilogue::Relu, Epilogue::AddRelu(&skip)] {
                let (mut a, mut b) = (vec![7.0; PP], vec![7.0; PP]);
                conv.forward_single(&xp, &mut a, epi, &INTERIOR);
                conv.forward_portable(&xp, &mut b, epi, &INTERIOR);
                assert_eq!(a, b, "cin {cin}, k {k}");
            }
        }
    }

    #[test]
    fn conv_paths_match_a_direct_convolution() {
        let mut rng = FastRng::new(3);
        let shapes = [
            (14, 32, 3),
            (32, 32, 3),
            (32, 48, 3),
            (16, 64, 3),
            (5, 8, 3),
            (7, 24, 3),
            (6, 12, 3),
            (9, 40, 1),
            (32, 1, 1),
        ];
        for (cin, cout, k) in shapes {
            let raw: Vec<f32> = (0..cout * cin * k * k)
                .map(|_| value(&mut rng, 0.0))
                .collect();
            let bias: Vec<f32> = (0..cout).map(|_| value(&mut rng, 0.0)).collect();
            let x: Vec<f32> = (0..cin * NN).map(|_| value(&mut rng, 0.5)).collect();
            let skip: Vec<f32> = (0..cout * NN).map(|_| value(&mut rng, 0.0)).collect();
            let conv = Conv::from_raw(cin, cout, k, &raw, bias.clone());
            let expect = reference(cin, cout, k, &raw, &bias, &x);
            let (xp, skip_p) = (to_padded(&x, cin), to_padded(&skip, cout));
            for epi in [Epilogue::Linear, Epilogue::Relu, Epilogue::AddRelu(&skip_p)] {
                let want = |oc: usize, i: usize| {
                    let s = expect[oc * NN + i];
                    match epi {
                        Epilogue::Linear => s,
                        Epilogue::Relu => s.max(0.0),
                        Epilogue::AddRelu(_) => (s + skip[oc * NN + i]).max(0.0),
                    }
                };
                let mut paths: Vec<(&str, Vec<f32>)> = Vec::new();
                // A sentinel on the borders checks that they are left untouched.
                let mut out = vec![7.0; PP * cout];
                conv.forward(&xp, &mut out, epi, &INTERIOR);
                paths.push(("dispatch", out));
                let mut out = vec![7.0; PP * cout];
                conv.forward_portable(&xp, &mut out, epi, &INTERIOR);
                paths.push(("portable", out));
                #[cfg(target_arch = "x86_64")]
                if cout % 8 == 0 && has_avx2_fma() {
                    let mut out = vec![7.0; PP * cout];
                    // SAFETY: AVX2/FMA present; buffers are full size.
                    unsafe { conv.forward_avx2(&xp, &mut out, epi, &INTERIOR) };
                    paths.push(("avx2", out));
                }
                #[cfg(target_arch = "x86_64")]
                if cout % 16 == 0 && std::arch::is_x86_feature_detected!("avx512f") {
                    let mut out = vec![7.0; PP * cout];
                    // SAFETY: AVX-512F present; buffers are full size.
                    unsafe { conv.forward_avx512(&xp, &mut out, epi, &INTERIOR) };
                    paths.push(("avx512", out));
                }
                for (name, out) in &paths {
                    for q in 0..PP {
                        for oc in 0..cout {
                            let got = out[q * cout + oc];
                            match INTERIOR.iter().position(|&p| p == q) {
                                Some(i) => {
                                    let w = want(oc, i);
                                    assert!(
                                        (got - w).abs() <= 1e-5 * (1.0 + w.abs()),
                                        "{name} {cin}->{cout} k{k} {epi:?}: point {i} channel {oc}: {got} vs {w}"
                                    );
                                }
                                None => assert_eq!(got, 7.0, "{name}: border {q} written"),
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_batch_gives_each_position_its_own_logits() {
        use crate::net::inference::cnn::CnnConfig;
        use crate::net::inference::encode::{NetInput, cnn_planes};
        let positions = crate::net::training::synthetic::random_game_positions(2, 5);
        for channels in [12, 32, 48] {
            let m = CnnConfig::new()
                .with_blocks(2)
                .with_channels(channels)
                .init(&crate::net::cpu_device());
            let plain = PlainCnn::from_burn(&m);
            let n = 7;
            let mut planes = vec![0f32; n * CNN_PLANES * NN];
            for (pos, row) in positions
                .iter()
                .step_by(9)
                .zip(planes.chunks_mut(CNN_PLANES * NN))
            {
                let board = pos.board();
                cnn_planes(&NetInput::from_position(pos, &board), row);
            }
            let mut batch = vec![0f32; n * NN];
            plain.logits_batch(&planes, n, &mut Scratch::default(), &mut batch);
            let mut scratch = Scratch::default();
            for (i, row) in planes.chunks(CNN_PLANES * NN).enumerate() {
                let mut one = [0f32; NN];
                plain.logits(row, &mut scratch, &mut one);
                for (a, b) in one.iter().zip(&batch[i * NN..(i + 1) * NN]) {
                    assert!(
                        (a - b).abs() <= 1e-5 * (1.0 + a.abs()),
                        "{channels}: {a} vs {b}"
                    );
                }
            }
            assert!(batch.iter().any(|&v| v != batch[0]), "the positions differ");
        }
    }

    /// The score head without burn gives burn's number (times the scale) for the same
    /// position, and the 8-bit network's answer is the float one.
    #[test]
    fn the_plain_score_head_matches_burns() {
        use crate::net::inference::cnn::{CnnConfig, SCORE_SCALE};
        use crate::net::inference::encode::{NetInput, cnn_planes};
        use burn::tensor::{Tensor, TensorData};
        let device = crate::net::cpu_device();
        let m = crate::net::training::train::seeded_init(3, &device, |d| {
            CnnConfig::new()
                .with_blocks(1)
                .with_channels(16)
                .with_value_channels(8)
                .with_score(true)
                .init(d)
        });
        let plain = PlainCnn::from_burn(&m);
        assert!(plain.has_score());
        let quant = super::super::quant::QuantCnn::from_plain(&plain);
        let positions = crate::net::training::synthetic::random_game_positions(1, 11);
        let mut scratch = Scratch::default();
        for pos in positions.iter().step_by(7) {
            let board = pos.board();
            let mut planes = vec![0f32; CNN_PLANES * NN];
            cnn_planes(&NetInput::from_position(pos, &board), &mut planes);
            let x = Tensor::<4>::from_data(
                TensorData::new(planes.clone(), [1, CNN_PLANES, 9, 9]),
                &device,
            );
            let want =
                float_values(m.forward_heads(x).score.expect("a score head"))[0] * SCORE_SCALE;
            let got = plain.score_lead(&planes, &mut scratch).unwrap();
            assert!(
                (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                "{got} vs {want}"
            );
            assert_eq!(quant.score_lead(&planes, &mut scratch), Some(got));
        }
        let without = CnnConfig::new()
            .with_blocks(1)
            .with_channels(16)
            .with_value_channels(8);
        let no_head = PlainCnn::from_burn(&without.init(&device));
        assert_eq!(
            no_head.score_lead(&[0.0; CNN_PLANES * NN], &mut scratch),
            None
        );
    }

    #[test]
    fn zero_border_clears_exactly_the_border() {
        for c in [1, 3, 32] {
            let mut buf = vec![1.0; PP * c];
            zero_border(&mut buf, c);
            for q in 0..PP {
                let border = INTERIOR.iter().all(|&p| p != q);
                let want = if border { 0.0 } else { 1.0 };
                assert!(
                    buf[q * c..(q + 1) * c].iter().all(|&v| v == want),
                    "c {c} point {q}"
                );
            }
        }
    }
}
