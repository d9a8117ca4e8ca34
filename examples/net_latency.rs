//! Batch-1 latency of the plain evaluators as CPU time per call, which (unlike criterion's
//! wall-clock figures) stays meaningful on a shared, overloaded machine.
//!
//! Run: `cargo run --release --example net_latency -- [MODEL_DIR] [CALLS] [BATCH,...]`;
//! `nnq:MODEL_DIR` times a CNN's 8-bit evaluation, `sym8:...` (or `sym4:`, `sym2:`) its
//! average over the symmetries.
//! With batch sizes (e.g. `1,8,32`), the model is also timed through
//! `NetPruner::rate_batch`, as CPU time per position. Every figure names the kernel it ran
//! on (`[8-bit vnni]`, `[float avx2]`...); `AKUSHU_NO_AVX512`, `AKUSHU_NO_AVXVNNI` and
//! `AKUSHU_NO_AVX2` choose a narrower one (docs/notes-net.md, "8-bit evaluation").

use akushu::net::cnn::CnnConfig;
use akushu::net::encode::NetInput;
use akushu::net::mlp::MlpConfig;
use akushu::net::model::SavedModel;
use akushu::net::synthetic::random_game_positions;
use akushu::net::{NetPruner, cpu_device};
use akushu::prune::{PruneContext, Pruner};
use akushu::rules::NN;
use std::hint::black_box;
use std::time::Instant;

/// This process's user+system CPU seconds (getrusage: microsecond resolution).
fn cpu_seconds() -> f64 {
    akushu::util::cpu_seconds().unwrap_or(f64::NAN)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let calls: usize = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(200_000);
    let device = cpu_device();
    let mut models: Vec<(String, NetPruner)> = vec![
        (
            "mlp-81-256-256-81".to_string(),
            SavedModel::Mlp(Box::new(MlpConfig::new().init(&device)), MlpConfig::new()),
        ),
        (
            "cnn-4x32".to_string(),
            SavedModel::Cnn(Box::new(CnnConfig::new().init(&device)), CnnConfig::new()),
        ),
    ]
    .into_iter()
    .map(|(name, m)| (name.clone(), NetPruner::from_model(&m, name)))
    .collect();
    if let Some(dir) = args.get(1) {
        let pruner = NetPruner::load_named(dir).expect("model loads");
        models.insert(0, (dir.clone(), pruner));
    }
    let positions = random_game_positions(8, 5);
    let boards: Vec<_> = positions.iter().map(|p| p.board()).collect();
    let mut out = [0f32; NN];
    for (name, pruner) in &models {
        let n = if name.starts_with("cnn") {
            calls / 50
        } else {
            calls
        };
        let (c0, t0) = (cpu_seconds(), Instant::now());
        for i in 0..n {
            let k = i % positions.len();
            let ctx = PruneContext {
                board: &boards[k],
                to_move: positions[k].color(),
                recent: &[],
            };
            pruner.badness(black_box(&ctx), &mut out);
            black_box(out[0]);
        }
        let (cpu, wall) = (cpu_seconds() - c0, t0.elapsed().as_secs_f64());
        println!(
            "{name}: {n} calls, {:.2} us CPU per call, {:.2} us wall per call [{}]",
            cpu * 1e6 / n as f64,
            wall * 1e6 / n as f64,
            pruner.kernel()
        );
    }
    let Some(batches) = args.get(3) else { return };
    let (name, pruner) = &models[0];
    let inputs: Vec<NetInput<'_>> = positions
        .iter()
        .zip(&boards)
        .map(|(p, b)| NetInput::from_position(p, b))
        .collect();
    for batch in batches.split(',').filter_map(|b| b.parse::<usize>().ok()) {
        let group: Vec<NetInput<'_>> = (0..batch).map(|i| inputs[i % inputs.len()]).collect();
        let mut rows = vec![[0f32; NN]; batch];
        let calls = (calls / 50 / batch).max(1);
        let (c0, t0) = (cpu_seconds(), Instant::now());
        for _ in 0..calls {
            pruner.rate_batch(black_box(&group), &mut rows);
            black_box(rows[0][0]);
        }
        let (cpu, wall) = (cpu_seconds() - c0, t0.elapsed().as_secs_f64());
        let per = (calls * batch) as f64;
        println!(
            "{name}: batch {batch}, {calls} calls, {:.2} us CPU per position, {:.2} us wall per position [{}]",
            cpu * 1e6 / per,
            wall * 1e6 / per,
            pruner.kernel()
        );
    }
}
