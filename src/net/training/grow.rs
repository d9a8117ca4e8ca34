//! Growing a trained CNN into a wider and deeper one that computes the same logits, so a
//! bigger network starts from what a smaller one learned instead of from noise (in the
//! spirit of Net2Net; Chen, Goodfellow and Shlens 2016).
//!
//! Why this and not Net2Net's channel duplication: duplicated channels receive identical
//! gradients and stay copies unless noise breaks the tie. Here the new parts start random
//! but are cut off from the output instead, so they are free to learn from the first step:
//! - a new channel of any layer keeps its random incoming weights, and every weight *from*
//!   a new channel into an old channel (or into the head) is zero, so the old channels, and
//!   through them the logits, are what the small network computed;
//! - a new residual block (appended after the old ones) has a random first convolution and
//!   an all-zero second one, so it adds nothing: `relu(x + 0) = x`, since the residual
//!   stream `x` is already the output of a ReLU.
//!
//! The first step's gradient reaches every zeroed weight (their inputs are non-zero), so
//! training opens the new capacity at once; the logits only start to move when it does.

use crate::net::inference::cnn::{Cnn, CnnConfig};
use crate::net::inference::plain::float_values;
use burn::module::Param;
use burn::nn::conv::Conv2d;
use burn::prelude::*;
use burn::tensor::TensorData;

/// `target` (a fresh network of shape `target_cfg`) with `source`'s weights grafted in, as
/// the module doc describes. Errors when the target is smaller than the source in blocks or
/// channels.
pub fn grow_cnn(
    source: &Cnn,
    source_cfg: &CnnConfig,
    target: Cnn,
    target_cfg: &CnnConfig,
) -> Result<Cnn, String> {
    if target_cfg.blocks < source_cfg.blocks || target_cfg.channels < source_cfg.channels {
        return Err(format!(
            "cannot grow a {}x{} CNN into a smaller {}x{} one",
            source_cfg.blocks, source_cfg.channels, target_cfg.blocks, target_cfg.channels
        ));
    }
    let Cnn {
        stem,
        blocks,
        head,
        value,
        ownership,
        ..
    } = target;
    let blocks = blocks
        .into_iter()
        .enumerate()
        .map(|(k, mut block)| {
            match source.blocks.get(k) {
                Some(old) => {
                    block.conv1 = graft(block.conv1, &old.conv1);
                    block.conv2 = graft(block.conv2, &old.conv2);
                }
                // A new block: its second convolution outputs zero, so the block is the
                // identity; the first keeps its random weights.
                None => block.conv2 = zeroed(block.conv2),
            }
            block
        })
        .collect();
    Ok(
        Cnn::from_parts(graft(stem, &source.stem), blocks, graft(head, &source.head))
            // The value and ownership heads read a tower of another shape: they start fresh.
            .with_heads(value, ownership),
    )
}

/// `dst` (a larger convolution of the same kernel size) with `src` embedded: an old output
/// channel takes `src`'s weights from the old input channels and zero from the new ones; a
/// new output channel keeps `dst`'s random weights and bias.
fn graft(mut dst: Conv2d, src: &Conv2d) -> Conv2d {
    let [src_out, src_in, kh, kw] = src.weight.dims();
    let [_, dst_in, _, _] = dst.weight.dims();
    let taps = kh * kw;
    let old = float_values(src.weight.val());
    dst.weight = rewrite(dst.weight, |w| {
        for o in 0..src_out {
            for i in 0..dst_in {
                let to = (o * dst_in + i) * taps;
                for t in 0..taps {
                    w[to + t] = if i < src_in {
                        old[(o * src_in + i) * taps + t]
                    } else {
                        0.0
                    };
                }
            }
        }
    });
    if let (Some(bias), Some(old_bias)) = (dst.bias.take(), src.bias.as_ref()) {
        let old = float_values(old_bias.val());
        dst.bias = Some(rewrite(bias, |b| b[..old.len()].copy_from_slice(&old)));
    }
    dst
}

/// `conv` with every weight and bias zero.
fn zeroed(mut conv: Conv2d) -> Conv2d {
    conv.weight = rewrite(conv.weight, |w| w.fill(0.0));
    conv.bias = conv.bias.map(|b| rewrite(b, |b| b.fill(0.0)));
    conv
}

/// `param` with its values edited by `edit`, keeping its id and whether it trains.
fn rewrite<const D: usize>(
    param: Param<Tensor<D>>,
    edit: impl FnOnce(&mut [f32]),
) -> Param<Tensor<D>> {
    param.map(|t| {
        let mut v = float_values(t.clone());
        edit(&mut v);
        let trains = t.is_require_grad();
        Tensor::from_data(TensorData::new(v, t.shape()), &t.device()).set_require_grad(trains)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::inference::encode::CNN_PLANES;
    use crate::net::training::train::seeded_init;

    fn random_input(device: &Device) -> Tensor<4> {
        // Deterministic non-negative planes, varied enough that every channel matters.
        let n = 3 * CNN_PLANES * 81;
        let v: Vec<f32> = (0..n).map(|k| ((k * 7919) % 13) as f32 / 12.0).collect();
        Tensor::from_data(TensorData::new(v, [3, CNN_PLANES, 9, 9]), device)
    }

    #[test]
    fn a_grown_network_gives_the_small_ones_logits() {
        let device = crate::net::cpu_device();
        let small_cfg = CnnConfig::new().with_blocks(2).with_channels(8);
        let big_cfg = CnnConfig::new().with_blocks(3).with_channels(12);
        let small = seeded_init(1, &device, |d| small_cfg.init(d));
        let big = seeded_init(2, &device, |d| big_cfg.init(d));
        let x = random_input(&device);
        let before = float_values(big.forward(x.clone()));
        let grown = grow_cnn(&small, &small_cfg, big, &big_cfg).unwrap();
        let want = float_values(small.forward(x.clone()));
        let got = float_values(grown.forward(x));
        // The random target computes something else; the grown one, the small one's logits.
        assert!(want.iter().zip(&before).any(|(a, b)| (a - b).abs() > 1e-2));
        for (a, b) in want.iter().zip(&got) {
            assert!((a - b).abs() < 1e-4, "{a} vs {b}");
        }
    }

    #[test]
    fn growing_into_a_smaller_shape_is_refused() {
        let device = crate::net::cpu_device();
        let small_cfg = CnnConfig::new().with_blocks(2).with_channels(8);
        let narrow = CnnConfig::new().with_blocks(3).with_channels(4);
        let small = small_cfg.init(&device);
        let err = grow_cnn(&small, &small_cfg, narrow.init(&device), &narrow).unwrap_err();
        assert!(err.contains("smaller"), "{err}");
    }
}
