//! A 3x3 "same" convolution over 9x9 boards for burn's CPU backend, forward and backward
//! as matrix products over several examples at once.
//!
//! burn-flex convolves one example at a time (a product with 81 rows per example) and
//! computes the weight gradient as a convolution with 9 output points, so its products are
//! too thin for the wide AVX-512 kernels: the 6x64 trainer stopped near 400-450 examples/s
//! on 2 cores (`docs/notes-net.md`, "Training at scale"). Here activations are kept as
//! `[batch, 81, channels]` (point-major, so an im2col row is nine copies of `channels`
//! contiguous floats) and, for every [`CHUNK`] examples (`rows` = 81 per example),
//!
//! - forward: `out[rows, c_out] = cols[rows, 9*c_in] x W[9*c_in, c_out] + bias`,
//! - weight gradient: `dW += cols^T x grad` (inner dimension `rows`),
//! - input gradient: `dcols = grad x W^T`, scattered back onto the points (col2im),
//! - bias gradient: the column sums of `grad`,
//!
//! with `cols` rebuilt from the input in the backward pass rather than kept (it is 9 times
//! the activation). It is a burn backend extension (`BoardConv`) implemented for the flex
//! backend and, with the backward pass above, for autodiff over it; other backends (the
//! GPU ones) keep burn's own convolution ([`uses_board_conv`]). Same weights and the same
//! function as `Conv2d` with padding 1: the test `board_conv_matches_burns_convolution`
//! compares outputs and all three gradients.

use burn::backend::tensor::FloatTensor;
use burn::backend::{Autodiff, Backend, Dispatch, Flex, TensorMetadata, backend_extension};
use burn::prelude::*;
use burn_autodiff::NodeId;
use burn_autodiff::checkpoint::base::Checkpointer;
use burn_autodiff::checkpoint::strategy::CheckpointStrategy;
use burn_autodiff::grads::Gradients;
use burn_autodiff::ops::{Backward, Ops, OpsKind};
use burn_flex::FlexTensor;

use crate::rules::{N, NN};

/// Examples per product: their im2col rows (4 x 81 x 9 x 64 floats = 0.75 MB at 64 channels)
/// stay in a core's L2 cache between being written and being multiplied, where a whole
/// shard's would go out to memory and back. Measured with `akushu bench train` (6x64, two
/// threads): 2 -> 966, 4 -> 1,009, 8 -> 928, 16 -> 862 examples/s; a whole shard: 702-821.
const CHUNK: usize = 4;

/// The convolution and its gradients on one backend.
#[backend_extension(Flex, Autodiff)]
pub trait BoardConv: Backend {
    /// `x` `[batch, 81, c_in]`, `weight` `[c_out, c_in, 3, 3]`, `bias` `[c_out]` ->
    /// `[batch, 81, c_out]`.
    fn board_conv3(
        x: FloatTensor<Self>,
        weight: FloatTensor<Self>,
        bias: FloatTensor<Self>,
    ) -> FloatTensor<Self>;

    /// Gradients of `board_conv3` for the input, the weight and the bias, given the
    /// output's gradient `grad` `[batch, 81, c_out]`.
    fn board_conv3_backward(
        x: FloatTensor<Self>,
        weight: FloatTensor<Self>,
        grad: FloatTensor<Self>,
    ) -> (FloatTensor<Self>, FloatTensor<Self>, FloatTensor<Self>);
}

/// True when `device` runs [`board_conv3`] (burn's CPU backend, with or without autodiff).
pub fn uses_board_conv(device: &Device) -> bool {
    matches!(
        device.clone().inner().as_dispatch(),
        burn::backend::DispatchDevice::Flex(_)
    )
}

/// The convolution on burn tensors: `x` `[batch, 81, c_in]`, `weight` `[c_out, c_in, 3, 3]`,
/// `bias` `[c_out]` -> `[batch, 81, c_out]`. Only for devices where [`uses_board_conv`].
pub fn board_conv3(x: Tensor<3>, weight: Tensor<4>, bias: Tensor<1>) -> Tensor<3> {
    Tensor::from_dispatch(Dispatch::board_conv3(
        x.into_dispatch(),
        weight.into_dispatch(),
        bias.into_dispatch(),
    ))
}

/// A flex tensor's values, row-major (copied only when it is not contiguous).
fn values(t: &FlexTensor) -> std::borrow::Cow<'_, [f32]> {
    match t.as_slice::<f32>() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(t.to_contiguous().as_slice::<f32>().unwrap().to_vec()),
    }
}

/// A contiguous flex tensor of `shape` holding `values`.
fn flex(values: Vec<f32>, shape: &[usize]) -> FlexTensor {
    FlexTensor::from_data(TensorData::new(values, shape.to_vec()))
}

impl BoardConv for Flex {
    fn board_conv3(x: FlexTensor, weight: FlexTensor, bias: FlexTensor) -> FlexTensor {
        let (batch, c_in, c_out) = dims(&x, &weight);
        let (x, k) = (values(&x), 9 * c_in);
        let w = weight_matrix(&values(&weight), c_in, c_out);
        let bias = values(&bias);
        let mut out = Vec::with_capacity(batch * NN * c_out);
        for _ in 0..batch * NN {
            out.extend_from_slice(&bias);
        }
        let mut cols = vec![0f32; CHUNK * NN * k];
        for (xc, oc) in x
            .chunks(CHUNK * NN * c_in)
            .zip(out.chunks_mut(CHUNK * NN * c_out))
        {
            let rows = oc.len() / c_out;
            im2col(xc, c_in, &mut cols[..rows * k]);
            // out[rows, c_out] += cols[rows, 9 c_in] x w[9 c_in, c_out]
            let cols = &cols[..rows * k];
            matmul(oc, cols, &w, rows, k, c_out, Layout::RowMajor, true);
        }
        flex(out, &[batch, NN, c_out])
    }

    fn board_conv3_backward(
        x: FlexTensor,
        weight: FlexTensor,
        grad: FlexTensor,
    ) -> (FlexTensor, FlexTensor, FlexTensor) {
        let (batch, c_in, c_out) = dims(&x, &weight);
        let k = 9 * c_in;
        let (x, grad) = (values(&x), values(&grad));
        let w = weight_matrix(&values(&weight), c_in, c_out);
        let mut dw = vec![0f32; k * c_out];
        let mut dx = vec![0f32; batch * NN * c_in];
        let mut cols = vec![0f32; CHUNK * NN * k];
        let chunks = x
            .chunks(CHUNK * NN * c_in)
            .zip(grad.chunks(CHUNK * NN * c_out))
            .zip(dx.chunks_mut(CHUNK * NN * c_in));
        for (i, ((xc, gc), dxc)) in chunks.enumerate() {
            let rows = gc.len() / c_out;
            let cols = &mut cols[..rows * k];
            im2col(xc, c_in, cols);
            // dW[k, c_out] += cols^T[k, rows] x grad[rows, c_out]
            matmul(
                &mut dw,
                cols,
                gc,
                k,
                rows,
                c_out,
                Layout::LhsTransposed,
                i > 0,
            );
            // dcols[rows, k] = grad[rows, c_out] x w^T[c_out, k], in the same buffer
            matmul(cols, gc, &w, rows, c_out, k, Layout::RhsTransposed, false);
            col2im(cols, c_in, dxc);
        }
        let mut db = vec![0f32; c_out];
        for row in grad.chunks(c_out) {
            for (d, g) in db.iter_mut().zip(row) {
                *d += g;
            }
        }
        (
            flex(dx, &[batch, NN, c_in]),
            flex(weight_layout(&dw, c_in, c_out), &[c_out, c_in, 3, 3]),
            flex(db, &[c_out]),
        )
    }
}

impl<B: Backend + BoardConv, C: CheckpointStrategy> BoardConv for Autodiff<B, C> {
    fn board_conv3(
        x: FloatTensor<Self>,
        weight: FloatTensor<Self>,
        bias: FloatTensor<Self>,
    ) -> FloatTensor<Self> {
        #[derive(Debug)]
        struct BoardConvBackward;

        impl<B: Backend + BoardConv> Backward<B, 3> for BoardConvBackward {
            type State = (NodeId, NodeId);

            fn backward(
                self,
                ops: Ops<Self::State, 3>,
                grads: &mut Gradients,
                checkpointer: &mut Checkpointer,
            ) {
                let [node_x, node_w, node_b] = ops.parents;
                let grad = grads.consume::<B>(&ops.node);
                let (x_state, w_state) = ops.state;
                let x = checkpointer.retrieve_node_output::<B::FloatTensorPrimitive>(x_state);
                let w = checkpointer.retrieve_node_output::<B::FloatTensorPrimitive>(w_state);
                let (dx, dw, db) = B::board_conv3_backward(x, w, grad);
                if let Some(node) = node_x {
                    grads.register::<B>(node.id, dx);
                }
                if let Some(node) = node_w {
                    grads.register::<B>(node.id, dw);
                }
                if let Some(node) = node_b {
                    grads.register::<B>(node.id, db);
                }
            }
        }

        match BoardConvBackward
            .prepare::<C>([x.node(), weight.node(), bias.node()])
            .compute_bound()
            .stateful()
        {
            OpsKind::Tracked(mut prep) => {
                let x_state = prep.checkpoint(&x);
                let w_state = prep.checkpoint(&weight);
                let out = B::board_conv3(
                    x.into_primitive(),
                    weight.into_primitive(),
                    bias.into_primitive(),
                );
                prep.finish((x_state, w_state), out)
            }
            OpsKind::UnTracked(prep) => prep.finish(B::board_conv3(
                x.into_primitive(),
                weight.into_primitive(),
                bias.into_primitive(),
            )),
        }
    }

    fn board_conv3_backward(
        _x: FloatTensor<Self>,
        _weight: FloatTensor<Self>,
        _grad: FloatTensor<Self>,
    ) -> (FloatTensor<Self>, FloatTensor<Self>, FloatTensor<Self>) {
        unreachable!("the backward pass runs on the inner backend")
    }
}

/// `(batch, c_in, c_out)` of an input `[batch, 81, c_in]` and a weight `[c_out, c_in, 3, 3]`.
fn dims(x: &FlexTensor, weight: &FlexTensor) -> (usize, usize, usize) {
    let (xs, ws) = (x.shape(), weight.shape());
    assert_eq!(xs[1], NN, "board_conv3 takes [batch, 81, channels]");
    assert_eq!(
        (ws[1], ws[2], ws[3]),
        (xs[2], 3, 3),
        "board_conv3 weight shape"
    );
    (xs[0], xs[2], ws[0])
}

/// For each point and each of its 3x3 window's cells `(dy, dx)` in reading order, the point
/// under that cell, `None` off the board.
fn window(p: usize) -> impl Iterator<Item = Option<usize>> {
    let (r, c) = ((p / N) as isize, (p % N) as isize);
    (0..9).map(move |j| {
        let (rr, cc) = (r + j / 3 - 1, c + j % 3 - 1);
        let on = (0..N as isize).contains(&rr) && (0..N as isize).contains(&cc);
        on.then(|| (rr * N as isize + cc) as usize)
    })
}

/// `cols[b*81 + p, j*c_in + ci] = x[b, q, ci]` for the window cell `j` of `p` over point `q`
/// (zero off the board), for the examples of `x`; `cols` holds exactly their rows.
fn im2col(x: &[f32], c_in: usize, cols: &mut [f32]) {
    let k = 9 * c_in;
    for (xb, cb) in x.chunks(NN * c_in).zip(cols.chunks_mut(NN * k)) {
        for p in 0..NN {
            for (j, q) in window(p).enumerate() {
                let to = &mut cb[p * k + j * c_in..p * k + (j + 1) * c_in];
                match q {
                    Some(q) => to.copy_from_slice(&xb[q * c_in..(q + 1) * c_in]),
                    None => to.fill(0.0),
                }
            }
        }
    }
}

/// The adjoint of [`im2col`]: every column entry added onto the point it came from, in
/// `dx` (zeroed by the caller) for the examples whose rows `dcols` holds.
fn col2im(dcols: &[f32], c_in: usize, dx: &mut [f32]) {
    let k = 9 * c_in;
    for (xb, cb) in dx.chunks_mut(NN * c_in).zip(dcols.chunks(NN * k)) {
        for p in 0..NN {
            for (j, q) in window(p).enumerate() {
                if let Some(q) = q {
                    let src = &cb[p * k + j * c_in..p * k + (j + 1) * c_in];
                    for (d, s) in xb[q * c_in..(q + 1) * c_in].iter_mut().zip(src) {
                        *d += s;
                    }
                }
            }
        }
    }
}

/// burn's weight `[c_out, c_in, 3, 3]` as the product's `[9*c_in, c_out]` matrix, row
/// `j*c_in + ci` (window cell `j` = `ky*3 + kx`).
fn weight_matrix(w: &[f32], c_in: usize, c_out: usize) -> Vec<f32> {
    let mut m = vec![0f32; 9 * c_in * c_out];
    for co in 0..c_out {
        for ci in 0..c_in {
            for j in 0..9 {
                m[(j * c_in + ci) * c_out + co] = w[(co * c_in + ci) * 9 + j];
            }
        }
    }
    m
}

/// The inverse of [`weight_matrix`]: `[9*c_in, c_out]` back to `[c_out, c_in, 3, 3]`.
fn weight_layout(m: &[f32], c_in: usize, c_out: usize) -> Vec<f32> {
    let mut w = vec![0f32; 9 * c_in * c_out];
    for co in 0..c_out {
        for ci in 0..c_in {
            for j in 0..9 {
                w[(co * c_in + ci) * 9 + j] = m[(j * c_in + ci) * c_out + co];
            }
        }
    }
    w
}

/// How [`matmul`] reads its operands (both stored row-major).
#[derive(Clone, Copy)]
enum Layout {
    /// `lhs[m, k] x rhs[k, n]`.
    RowMajor,
    /// `lhs` stored `[k, m]`, used transposed.
    LhsTransposed,
    /// `rhs` stored `[n, k]`, used transposed.
    RhsTransposed,
}

/// `dst[m, n] (+)= lhs x rhs` (row-major `dst`; adds to it when `accumulate`), single
/// threaded: the trainer already runs one shard of the batch per core.
#[allow(clippy::too_many_arguments)]
fn matmul(
    dst: &mut [f32],
    lhs: &[f32],
    rhs: &[f32],
    m: usize,
    k: usize,
    n: usize,
    layout: Layout,
    accumulate: bool,
) {
    assert_eq!(dst.len(), m * n);
    assert_eq!(lhs.len(), m * k);
    assert_eq!(rhs.len(), k * n);
    // (column stride, row stride) of each operand
    let (lhs_cs, lhs_rs) = match layout {
        Layout::LhsTransposed => (m as isize, 1),
        _ => (1, k as isize),
    };
    let (rhs_cs, rhs_rs) = match layout {
        Layout::RhsTransposed => (k as isize, 1),
        _ => (1, n as isize),
    };
    // SAFETY: the three buffers hold m*n, m*k and k*n floats (asserted above), and the
    // strides address exactly those row-major (or transposed row-major) matrices.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            lhs.as_ptr(),
            lhs_cs,
            lhs_rs,
            rhs.as_ptr(),
            rhs_cs,
            rhs_rs,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::cpu_device;
    use crate::net::inference::cnn::CnnConfig;
    use crate::net::inference::encode::CNN_PLANES;
    use crate::net::inference::plain::float_values;
    use burn::optim::GradientsParams;

    /// Largest absolute difference between two equally long value lists.
    fn max_gap(a: &[f32], b: &[f32]) -> f32 {
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    }

    /// Random planes with some structure (0/1 values, as the encoder writes them).
    fn planes(batch: usize, seed: u64) -> Vec<f32> {
        let mut rng = crate::util::rng::FastRng::new(seed);
        (0..batch * CNN_PLANES * NN)
            .map(|_| f32::from(rng.below(3) == 0))
            .collect()
    }

    #[test]
    fn board_conv_matches_burns_convolution() {
        let device = cpu_device().autodiff();
        assert!(uses_board_conv(&device) && uses_board_conv(&cpu_device()));
        let model = CnnConfig::new()
            .with_blocks(2)
            .with_channels(8)
            .init(&device);
        let batch = 2 * CHUNK + 3; // two whole chunks and a part
        let input = || {
            Tensor::<4>::from_data(
                TensorData::new(planes(batch, 3), [batch, CNN_PLANES, 9, 9]),
                &device,
            )
        };
        // any loss that weighs every logit differently
        let weights = Tensor::<2>::from_data(
            TensorData::new(
                (0..batch * NN)
                    .map(|i| (i % 7) as f32 - 3.0)
                    .collect::<Vec<_>>(),
                [batch, NN],
            ),
            &device,
        );
        let run = |logits: Tensor<2>| {
            let values = float_values(logits.clone());
            let grads =
                GradientsParams::from_grads((logits * weights.clone()).sum().backward(), &model);
            (values, grads)
        };
        let (board, board_grads) = run(model.forward_board(input()));
        let (conv, conv_grads) = run(model.forward_conv2d(input()));
        assert!(
            max_gap(&board, &conv) < 1e-4,
            "logits differ by {}",
            max_gap(&board, &conv)
        );
        assert!(board.iter().any(|v| v.abs() > 1e-3), "logits all near zero");
        // every parameter's gradient agrees
        let layers: Vec<_> = std::iter::once(&model.stem)
            .chain(model.blocks.iter().flat_map(|b| [&b.conv1, &b.conv2]))
            .chain(std::iter::once(&model.head))
            .collect();
        for (i, layer) in layers.iter().enumerate() {
            let bias = layer.bias.as_ref().unwrap();
            let pairs = [
                (
                    float_values(board_grads.get::<4>(layer.weight.id).unwrap()),
                    float_values(conv_grads.get::<4>(layer.weight.id).unwrap()),
                ),
                (
                    float_values(board_grads.get::<1>(bias.id).unwrap()),
                    float_values(conv_grads.get::<1>(bias.id).unwrap()),
                ),
            ];
            for (a, b) in pairs {
                let scale = b.iter().fold(1.0f32, |m, v| m.max(v.abs()));
                let gap = max_gap(&a, &b);
                assert!(
                    gap <= 1e-4 * scale,
                    "layer {i}: gradients differ by {gap} (scale {scale})"
                );
                assert!(b.iter().any(|v| *v != 0.0), "layer {i}: zero gradient");
            }
        }
    }
}
