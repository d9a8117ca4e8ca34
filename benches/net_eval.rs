//! Batch-1 latency of the bad-move evaluators, as the search calls them: the plain-Rust
//! evaluator through `NetPruner::badness` (encoding included), and burn's forward pass for
//! comparison. Uses `models/default` when present, else freshly initialised networks of the
//! default shapes (the cost does not depend on the weights, except that ReLU zeros are skipped).
//!
//! Run: `cargo bench --bench net_eval`.

use akushu::net::cnn::CnnConfig;
use akushu::net::encode::{MlpEncoding, NetInput, mlp_input};
use akushu::net::mlp::MlpConfig;
use akushu::net::model::SavedModel;
use akushu::net::synthetic::random_game_positions;
use akushu::net::{NetPruner, cpu_device};
use akushu::prune::{PruneContext, Pruner};
use akushu::rules::NN;
use burn::prelude::*;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::Path;

fn bench(c: &mut Criterion) {
    let positions = random_game_positions(4, 3);
    let boards: Vec<_> = positions.iter().map(|p| p.board()).collect();
    let device = cpu_device();
    let mut models: Vec<(String, SavedModel)> = vec![
        (
            "mlp-81-256-256-81".into(),
            SavedModel::Mlp(Box::new(MlpConfig::new().init(&device)), MlpConfig::new()),
        ),
        (
            "cnn-4x32".into(),
            SavedModel::Cnn(Box::new(CnnConfig::new().init(&device)), CnnConfig::new()),
        ),
    ];
    if Path::new("models/default/model.bpk").exists() {
        let (m, _) = SavedModel::load(Path::new("models/default")).expect("models/default loads");
        models.insert(0, ("models-default".into(), m));
    }
    let mut out = [0f32; NN];
    for (name, model) in &models {
        let pruner = NetPruner::from_model(model, name.clone());
        let mut i = 0;
        c.bench_function(&format!("plain/{name}"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                let ctx = PruneContext {
                    board: &boards[i],
                    to_move: positions[i].color(),
                    recent: &[],
                };
                pruner.badness(black_box(&ctx), &mut out);
                black_box(out[0])
            })
        });
        if let SavedModel::Mlp(m, cfg) = model {
            let mut x = vec![0f32; cfg.encoding.width()];
            let enc: MlpEncoding = cfg.encoding;
            c.bench_function(&format!("burn/{name}"), |b| {
                b.iter(|| {
                    i = (i + 1) % positions.len();
                    mlp_input(
                        enc,
                        &NetInput::from_position(&positions[i], &boards[i]),
                        &mut x,
                    );
                    let t =
                        Tensor::<2>::from_data(TensorData::new(x.clone(), [1, x.len()]), &device);
                    black_box(m.forward(t).into_data())
                })
            });
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
