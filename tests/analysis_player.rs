//! The territory player and playout policy: legal, deterministic per seed, games end.

use akushu::board_analysis::TerritoryPlayout;
use akushu::playout::{self, PlayoutConfig};
use akushu::rules::{Board, Color, Move};
use akushu::search::TerritoryPlayer;
use akushu::search::engine::{Engine, EngineMove};
use akushu::util::rng::FastRng;

fn self_play(seed: u64) -> Vec<Move> {
    let mut p = TerritoryPlayer::new(seed);
    p.new_game(6.5);
    let mut color = Color::Black;
    let mut moves = Vec::new();
    for _ in 0..200 {
        if p.game().is_over() {
            break;
        }
        let (m, _) = p.genmove(color);
        let EngineMove::Play(m) = m else {
            panic!("the territory player never resigns")
        };
        moves.push(m);
        color = color.opponent();
    }
    assert!(p.game().is_over(), "two passes end the game");
    moves
}

#[test]
fn territory_player_is_deterministic_per_seed_and_passes_at_the_end() {
    let a = self_play(7);
    assert_eq!(a, self_play(7));
    assert!(a.len() > 10);
    assert_eq!(&a[a.len() - 2..], &[Move::Pass, Move::Pass]);
    assert!(a.iter().any(|&m| m != Move::Pass));
    // a different seed plays a different game (ties are broken at random)
    assert!((1..6).any(|s| self_play(100 + s) != a));
}

#[test]
fn first_move_gains_the_most_territory() {
    let mut p = TerritoryPlayer::new(1);
    p.new_game(6.5);
    let (m, _) = p.genmove(Color::Black);
    let EngineMove::Play(Move::Play(pt)) = m else {
        panic!("expected a stone")
    };
    assert!((2..=6).contains(&pt.row()) && (2..=6).contains(&pt.col()));
    assert!(p.undo());
    assert_eq!(p.game().move_count(), 0);
}

#[test]
fn territory_playouts_reach_the_end_and_repeat_with_the_seed() {
    let config = PlayoutConfig::default();
    let run = |seed| {
        let mut b = Board::new();
        let mut rng = FastRng::new(seed);
        let mut moves = Vec::new();
        let r = playout::run(
            &mut b,
            Color::Black,
            &mut TerritoryPlayout::new(),
            &mut rng,
            &config,
            |c, m| moves.push((c, m)),
        );
        (r, moves)
    };
    let (r1, m1) = run(3);
    let (r2, m2) = run(3);
    assert_eq!(m1, m2);
    assert_eq!(r1, r2);
    assert!(!r1.capped, "playout should end with two passes");
}
