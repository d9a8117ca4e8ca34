//! The GPU path (builds with `--features gpu` or `--features cuda`, on a machine with a GPU):
//! the shipped CNN's forward pass on the GPU matches the CPU's within 1e-3, and a few training
//! steps on the GPU lower the loss. Run: `cargo test --release --features gpu --test net_gpu`.
#![cfg(any(feature = "vulkan", feature = "cuda"))]

use akushu::net::encode::{CNN_PLANES, NetInput, cnn_planes};
use akushu::net::model::SavedModel;
use akushu::net::synthetic::random_game_positions;
use akushu::net::{DeviceChoice, cpu_device};
use akushu::rules::NN;
use burn::prelude::*;
use std::path::Path;

fn logits(model: &SavedModel, x: &[f32], rows: usize, device: &Device) -> Vec<f32> {
    let SavedModel::Cnn(m, _) = model else {
        panic!("models/cnn is a CNN")
    };
    let t = Tensor::<4>::from_data(
        TensorData::new(x.to_vec(), [rows, CNN_PLANES, 9, 9]),
        device,
    );
    m.forward(t)
        .into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .unwrap()
}

#[test]
fn gpu_forward_matches_cpu_on_the_shipped_cnn() {
    let gpu = "gpu".parse::<DeviceChoice>().unwrap().device().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cnn");
    let (on_cpu, _) = SavedModel::load(&dir).unwrap();
    let (on_gpu, _) = SavedModel::load_on(&dir, &gpu).unwrap();
    let positions = random_game_positions(8, 3);
    let rows = positions.len().min(256);
    let mut x = vec![0f32; rows * CNN_PLANES * NN];
    for (pos, row) in positions.iter().zip(x.chunks_mut(CNN_PLANES * NN)) {
        let board = pos.board();
        cnn_planes(&NetInput::from_position(pos, &board), row);
    }
    let a = logits(&on_cpu, &x, rows, &cpu_device());
    let b = logits(&on_gpu, &x, rows, &gpu);
    let worst = a
        .iter()
        .zip(&b)
        .map(|(p, q)| (p - q).abs())
        .fold(0f32, f32::max);
    assert!(worst < 1e-3, "GPU logits differ from the CPU's by {worst}");
}

#[test]
fn gpu_training_lowers_the_loss() {
    use akushu::net::cnn::CnnConfig;
    use akushu::net::model::{NetKind, TrainConfig};
    use akushu::net::train::{TrainOptions, train};
    let cfg = TrainConfig::new(NetKind::Cnn)
        .with_cnn(CnnConfig::new().with_blocks(1).with_channels(16))
        .with_epochs(2)
        .with_batch_size(64)
        .with_patience(10);
    let dir = std::env::temp_dir().join(format!("akushu-gpu-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = TrainOptions {
        device: "gpu".parse::<DeviceChoice>().unwrap().device().unwrap(),
        ..TrainOptions::default()
    };
    let s = train(
        &cfg,
        &random_game_positions(40, 1),
        &random_game_positions(8, 2),
        &dir,
        &options,
    )
    .unwrap();
    assert!(s.log[1].train_loss < s.log[0].train_loss, "{:?}", s.log);
}
