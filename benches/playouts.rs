//! Criterion benchmark of the playout core: one uniform random playout from the empty board,
//! and one legal-move draw + play in the middle game. `cargo bench --bench playouts`.

use akushu::playout::{self, PlayoutConfig, Uniform};
use akushu::rules::{BOARD, Board, Color};
use akushu::util::rng::FastRng;
use criterion::{Criterion, criterion_group, criterion_main};

fn bench_playout(c: &mut Criterion) {
    let config = PlayoutConfig::default();
    let empty = Board::new();
    let mut rng = FastRng::new(1);
    c.bench_function("playout_from_empty_board", |b| {
        b.iter(|| {
            let mut board = empty;
            playout::run(
                &mut board,
                Color::Black,
                &mut Uniform,
                &mut rng,
                &config,
                |_, _| {},
            )
        })
    });

    // A middle-game position: 30 random moves in.
    let mut mid = Board::new();
    let mut color = Color::Black;
    let mut setup_rng = FastRng::new(7);
    for _ in 0..30 {
        if let Some(p) = mid.random_move(color, BOARD, &mut setup_rng) {
            mid.play_legal(color, p);
        }
        color = color.opponent();
    }
    c.bench_function("random_move_and_play_midgame", |b| {
        b.iter(|| {
            let mut board = mid;
            let p = board
                .random_move(color, BOARD, &mut rng)
                .expect("moves left");
            board.play_legal(color, p);
            board
        })
    });
}

criterion_group!(benches, bench_playout);
criterion_main!(benches);
