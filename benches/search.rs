//! Criterion benchmark of the search targets: one UCT move at 10,000 simulations from the
//! empty board (target: under 0.1 s on one core), unpruned and with tree pruning by the rule
//! pruner. `cargo bench --bench search`.

use akushu::rules::Color;
use akushu::search::Engine;
use akushu::search::spec::parse_uct;
use akushu::search::uct::UctEngine;
use criterion::{Criterion, criterion_group, criterion_main};

fn uct_move(c: &mut Criterion) {
    let mut group = c.benchmark_group("uct_move_10k");
    group.sample_size(10);
    for spec in ["uct:sims=10000", "uct:sims=10000,prune=rule:41@0"] {
        group.bench_function(spec, |b| {
            let mut e = UctEngine::new(parse_uct(spec).unwrap(), 1).unwrap();
            b.iter(|| {
                e.new_game(6.5);
                e.genmove(Color::Black)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, uct_move);
criterion_main!(benches);
