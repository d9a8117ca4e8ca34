//! Training speed as figures: examples per second of the real training step, the floating-
//! point work per example, and the machine's fused-multiply-add peak measured by a small
//! loop, so that a throughput can be read as a share of what the cores can do
//! (`akushu bench train`).

use super::train::{CnnTask, MlpTask, TrainOptions, seeded_init, thread_pool, time_steps};
use crate::dataset::Position;
use crate::net::NetError;
use crate::net::inference::model::{NetKind, TrainConfig};
use crate::rules::NN;
use std::time::Instant;

/// Floating-point operations of one forward pass of `config`'s network on one position
/// (a multiply-add counts two). Activations, masks and the loss are left out: they are a few
/// percent of the convolutions and products.
pub fn forward_flops(config: &TrainConfig) -> f64 {
    match config.model {
        NetKind::Cnn => {
            let c = config.cnn.channels as f64;
            let planes = crate::net::inference::encode::CNN_PLANES as f64;
            let per_point = planes * c * 9.0 + config.cnn.blocks as f64 * 2.0 * c * c * 9.0 + c;
            2.0 * NN as f64 * per_point
        }
        NetKind::Mlp => {
            let mut width = config.mlp.encoding.width();
            let mut macs = 0usize;
            for &w in config.mlp.hidden.iter().chain(std::iter::once(&NN)) {
                macs += width * w;
                width = w;
            }
            2.0 * macs as f64
        }
    }
}

/// One training example costs about three forward passes: the forward itself, and two
/// products of the same size in the backward pass (gradients of the inputs and weights).
pub fn training_flops(config: &TrainConfig) -> f64 {
    3.0 * forward_flops(config)
}

/// What [`time_training`] measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StepSpeed {
    pub threads: usize,
    pub steps: usize,
    pub examples_per_second: f64,
    /// Process CPU seconds per wall second (NaN where unknown).
    pub cpu_per_wall: f64,
    /// Achieved floating-point work, from [`training_flops`].
    pub gflops: f64,
}

/// Times `steps` optimiser steps (after one untimed warm-up step) of `config`'s network on
/// `positions` with `threads` threads (0 = one per core) on `device`, exactly as `akushu
/// train` runs them.
pub fn time_training(
    config: &TrainConfig,
    positions: &[Position],
    threads: usize,
    steps: usize,
    device: &burn::prelude::Device,
) -> Result<StepSpeed, NetError> {
    crate::util::keep_freed_memory();
    let options = TrainOptions {
        threads,
        device: device.clone(),
        ..TrainOptions::default()
    };
    let pool = thread_pool(threads)?;
    let used = pool.current_num_threads();
    let (examples, seconds, cpu) = pool.install(|| {
        let ad = options.device.clone().autodiff();
        match config.model {
            NetKind::Cnn => {
                let model = seeded_init(config.seed, &ad, |d| config.cnn.init(d));
                let task = CnnTask::of(config, config.target);
                time_steps(config, model, &task, positions, steps, &options)
            }
            NetKind::Mlp => {
                let task = MlpTask {
                    encoding: config.mlp.encoding,
                    loss: config.mlp.loss,
                    target: config.target,
                    bad_share: config.bad_share,
                };
                let model = seeded_init(config.seed, &ad, |d| config.mlp.init(d));
                time_steps(config, model, &task, positions, steps, &options)
            }
        }
    })?;
    let eps = examples as f64 / seconds.max(1e-9);
    Ok(StepSpeed {
        threads: used,
        steps,
        examples_per_second: eps,
        cpu_per_wall: cpu / seconds.max(1e-9),
        gflops: eps * training_flops(config) * 1e-9,
    })
}

/// Fused multiply-adds per second of this machine's widest vector unit, on `threads`
/// threads at once (each runs its own loop), in GFLOP/s (a multiply-add counts two).
/// Several independent accumulator chains hide the FMA latency, as a matrix-product kernel
/// does; the figure is the ceiling that training throughput is compared with.
pub fn fma_peak_gflops(threads: usize, seconds: f64) -> (f64, &'static str) {
    let threads = threads.max(1);
    let kind = fma_kind();
    let start = Instant::now();
    let flops: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| s.spawn(|| fma_loop(seconds)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    });
    (flops / start.elapsed().as_secs_f64() * 1e-9, kind)
}

fn fma_kind() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return "avx512f";
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return "avx2+fma";
        }
    }
    "scalar"
}

/// Runs FMA chains for about `seconds`; returns the floating-point operations done.
fn fma_loop(seconds: f64) -> f64 {
    let start = Instant::now();
    let mut flops = 0.0;
    while start.elapsed().as_secs_f64() < seconds {
        flops += fma_burst();
    }
    flops
}

/// One burst of 2^20 rounds over independent accumulators; returns its FLOPs.
fn fma_burst() -> f64 {
    const ROUNDS: usize = 1 << 20;
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked above).
            let sink = unsafe { burst_avx512(ROUNDS) };
            std::hint::black_box(sink);
            return (ROUNDS * 12 * 16 * 2) as f64;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU supports AVX2 and FMA (checked above).
            let sink = unsafe { burst_avx2(ROUNDS) };
            std::hint::black_box(sink);
            return (ROUNDS * 12 * 8 * 2) as f64;
        }
    }
    let mut acc = [1.0f32; 12];
    for _ in 0..ROUNDS {
        for a in acc.iter_mut() {
            *a = a.mul_add(0.999_999, 1e-7);
        }
    }
    std::hint::black_box(acc);
    (ROUNDS * 12 * 2) as f64
}

/// Twelve independent 16-lane chains: enough to cover two FMA ports' latency.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn burst_avx512(rounds: usize) -> f32 {
    use std::arch::x86_64::*;
    let m = _mm512_set1_ps(0.999_999);
    let b = _mm512_set1_ps(1e-7);
    let mut acc = [_mm512_set1_ps(1.0); 12];
    for _ in 0..rounds {
        for a in acc.iter_mut() {
            *a = _mm512_fmadd_ps(*a, m, b);
        }
    }
    let mut sum = _mm512_setzero_ps();
    for a in acc {
        sum = _mm512_add_ps(sum, a);
    }
    _mm512_reduce_add_ps(sum)
}

/// Twelve independent 8-lane chains.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn burst_avx2(rounds: usize) -> f32 {
    use std::arch::x86_64::*;
    let m = _mm256_set1_ps(0.999_999);
    let b = _mm256_set1_ps(1e-7);
    let mut acc = [_mm256_set1_ps(1.0); 12];
    for _ in 0..rounds {
        for a in acc.iter_mut() {
            *a = _mm256_fmadd_ps(*a, m, b);
        }
    }
    let mut sum = _mm256_setzero_ps();
    for a in acc {
        sum = _mm256_add_ps(sum, a);
    }
    let mut out = [0f32; 8];
    // SAFETY: `out` holds eight floats.
    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), sum) };
    out.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::inference::cnn::CnnConfig;

    #[test]
    fn flop_counts_follow_the_shapes() {
        let cnn = TrainConfig::new(NetKind::Cnn)
            .with_cnn(CnnConfig::new().with_blocks(6).with_channels(64));
        // 81 points x (14*64*9 stem + 12 * 64*64*9 tower + 64 head) multiply-adds.
        let macs = 81.0 * (14.0 * 64.0 * 9.0 + 12.0 * 64.0 * 64.0 * 9.0 + 64.0);
        assert_eq!(forward_flops(&cnn), 2.0 * macs);
        assert_eq!(training_flops(&cnn), 6.0 * macs);
        let mlp = TrainConfig::new(NetKind::Mlp);
        assert_eq!(
            forward_flops(&mlp),
            2.0 * (81.0 * 256.0 + 256.0 * 256.0 + 256.0 * 81.0)
        );
    }

    #[test]
    fn fma_peak_is_positive_and_names_its_unit() {
        let (gflops, kind) = fma_peak_gflops(1, 0.05);
        assert!(gflops > 0.1, "{gflops}");
        assert!(!kind.is_empty());
    }
}
