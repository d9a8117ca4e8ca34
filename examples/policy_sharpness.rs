//! How sharp each network's move distribution is, and how well its value head calls the
//! winner, on one split of a dataset.
//!
//! Run: `cargo run --release --example policy_sharpness -- DATASET SPLIT MAX MODEL...`
//! (MODEL a model folder; `nnq:` loads the 8-bit form the search uses). Prints per model:
//! mean entropy of the softmax over legal points (nats), mean probability of its top move,
//! mean prior wins of the top move under `policy_weight * sqrt(p)` with weight 100, the
//! log-loss of the played move, and (with a value head) the share of positions whose winner
//! the value calls and its log-loss.

use akushu::dataset::{Split, read_split};
use akushu::net::encode::NetInput;
use akushu::net::pruner::NetPruner;
use akushu::net::targets::value_target;
use akushu::rules::NN;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [data, split, max, models @ ..] = args.as_slice() else {
        anyhow::bail!("usage: policy_sharpness DATASET train|validation|test MAX MODEL...");
    };
    let split = Split::ALL
        .into_iter()
        .find(|s| s.name() == split)
        .ok_or_else(|| anyhow::anyhow!("split {split:?}: expected train, validation or test"))?;
    let max: usize = max.parse()?;
    let all = read_split(std::path::Path::new(data), split)?;
    let step = (all.len() / max.max(1)).max(1);
    let positions: Vec<_> = all.iter().step_by(step).take(max).collect();
    println!("{} positions of {}", positions.len(), all.len());
    println!("model\tentropy\ttop_p\ttop_prior_wins\tlogloss_played\tvalue_acc\tvalue_logloss");
    for m in models {
        let net = match m.strip_prefix("nnq:") {
            Some(dir) => NetPruner::load_quantized(std::path::Path::new(dir))?,
            None => NetPruner::load(std::path::Path::new(m))?,
        };
        let (mut ent, mut top, mut wins, mut ll, mut n) = (0.0, 0.0, 0.0, 0.0, 0usize);
        let (mut vacc, mut vll, mut vn) = (0.0, 0.0, 0usize);
        let mut bad = [0f32; NN];
        for p in &positions {
            let board = p.board();
            let inp = NetInput::from_position(p, &board);
            let legal = inp.legal_mask();
            let v = net.rate_value(&inp, &mut bad, net.has_value());
            let probs: Vec<f64> = (0..NN)
                .filter(|&i| legal[i])
                .map(|i| f64::from(1.0 - bad[i]).max(1e-9))
                .collect();
            if probs.is_empty() {
                continue;
            }
            ent -= probs.iter().map(|q| q * q.ln()).sum::<f64>();
            let t = probs.iter().cloned().fold(0.0, f64::max);
            top += t;
            wins += 100.0 * t.sqrt();
            if (p.played as usize) < NN {
                ll -= f64::from(1.0 - bad[p.played as usize]).max(1e-9).ln();
            }
            n += 1;
            // The mover's result as the value head is trained on it (NaN = unknown).
            let result = value_target(p);
            if let (Some(v), false) = (v, result.is_nan()) {
                let mover_won = result == 1.0;
                let q = f64::from(v).clamp(1e-6, 1.0 - 1e-6);
                vacc += f64::from(u8::from((q > 0.5) == mover_won));
                vll -= if mover_won { q.ln() } else { (1.0 - q).ln() };
                vn += 1;
            }
        }
        let n = n as f64;
        let vn = vn.max(1) as f64;
        println!(
            "{m}\t{:.4}\t{:.4}\t{:.2}\t{:.4}\t{:.4}\t{:.4}",
            ent / n,
            top / n,
            wins / n,
            ll / n,
            vacc / vn,
            vll / vn
        );
    }
    Ok(())
}
