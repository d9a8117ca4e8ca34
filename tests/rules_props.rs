//! Property tests: random games where, after every move, the incremental board state is
//! compared with a from-scratch recomputation and with a naive reference implementation of
//! the capture rules; plus playout determinism.

use akushu::playout::{self, PlayoutConfig, Uniform};
use akushu::rules::{Board, Color, Move, NN, Point};
use akushu::util::rng::FastRng;

/// The naive rules: place the stone, remove opponent chains without liberties, then refuse
/// the move if the mover's chain has none. Returns None for suicide.
fn naive_play(cells: &[u8; NN], c: u8, p: usize) -> Option<[u8; NN]> {
    fn chain_has_liberty(cells: &[u8; NN], start: usize) -> (Vec<usize>, bool) {
        let color = cells[start];
        let mut seen = [false; NN];
        let mut stack = vec![start];
        let mut chain = Vec::new();
        let mut liberty = false;
        seen[start] = true;
        while let Some(q) = stack.pop() {
            chain.push(q);
            let (r, col) = (q / 9, q % 9);
            let mut ns = Vec::new();
            if r > 0 {
                ns.push(q - 9)
            }
            if r < 8 {
                ns.push(q + 9)
            }
            if col > 0 {
                ns.push(q - 1)
            }
            if col < 8 {
                ns.push(q + 1)
            }
            for n in ns {
                if cells[n] == 0 {
                    liberty = true;
                } else if cells[n] == color && !seen[n] {
                    seen[n] = true;
                    stack.push(n);
                }
            }
        }
        (chain, liberty)
    }
    let mut next = *cells;
    next[p] = c;
    let opp = 3 - c;
    for q in 0..NN {
        if next[q] == opp {
            let (chain, lib) = chain_has_liberty(&next, q);
            if !lib {
                for s in chain {
                    next[s] = 0;
                }
            }
        }
    }
    let (_, lib) = chain_has_liberty(&next, p);
    lib.then_some(next)
}

#[test]
fn random_games_keep_incremental_state_exact() {
    let mut checked = 0;
    for game in 0..400u64 {
        let mut rng = FastRng::for_stream(2024, game);
        let mut board = Board::new();
        let mut color = Color::Black;
        let mut passes = 0;
        for _ in 0..400 {
            // Try an arbitrary empty point (not only eye-free ones) to exercise suicide and
            // ko refusals, then fall back to the playout move generator.
            let empties = board.empty_points().to_vec();
            let mut moved = false;
            if !empties.is_empty() {
                let p = Point::new(empties[rng.below(empties.len() as u32) as usize] as usize);
                let expected = naive_play(board.cells(), color as u8, p.index());
                let mut trial = board;
                match trial.play(color, p) {
                    Ok(_) => {
                        let exp =
                            expected.expect("board accepted a move the naive rules call suicide");
                        assert_eq!(trial.cells(), &exp, "captures differ at {p}");
                        board = trial;
                        moved = true;
                    }
                    Err(akushu::rules::IllegalMove::Suicide(_)) => {
                        assert!(
                            expected.is_none(),
                            "board refused {p} as suicide, naive rules allow it"
                        )
                    }
                    Err(akushu::rules::IllegalMove::Ko(_)) => {
                        assert_eq!(board.ko_point(), Some(p));
                    }
                    Err(e) => panic!("unexpected refusal {e}"),
                }
            }
            if !moved {
                match board.random_move(color, akushu::rules::BOARD, &mut rng) {
                    Some(p) => {
                        board
                            .play(color, p)
                            .expect("random_move returns legal moves");
                        passes = 0;
                    }
                    None => {
                        board.play_move(color, Move::Pass).unwrap();
                        passes += 1;
                    }
                }
            }
            board
                .check_invariants()
                .unwrap_or_else(|e| panic!("game {game}: {e}\n{board}"));
            checked += 1;
            if passes >= 2 {
                break;
            }
            color = color.opponent();
        }
    }
    assert!(checked > 50_000, "checked {checked} positions");
}

#[test]
fn random_move_never_fills_own_eye_and_is_legal() {
    let mut rng = FastRng::new(99);
    for _ in 0..200 {
        let mut board = Board::new();
        let mut color = Color::Black;
        for _ in 0..200 {
            let Some(p) = board.random_move(color, akushu::rules::BOARD, &mut rng) else {
                break;
            };
            assert!(!board.is_eye(color, p));
            assert!(board.is_legal(color, p));
            board.play_legal(color, p);
            color = color.opponent();
        }
    }
}

fn playout_moves(seed: u64) -> (Vec<(Color, Move)>, f32) {
    let mut rng = FastRng::new(seed);
    let mut board = Board::new();
    let mut moves = Vec::new();
    let r = playout::run(
        &mut board,
        Color::Black,
        &mut Uniform,
        &mut rng,
        &PlayoutConfig::default(),
        |c, m| moves.push((c, m)),
    );
    (moves, r.margin)
}

#[test]
fn same_seed_same_playout_sequence() {
    for seed in 0..20 {
        assert_eq!(playout_moves(seed), playout_moves(seed));
    }
    assert_ne!(playout_moves(1).0, playout_moves(2).0);
}

#[test]
fn playouts_end_and_score_every_point() {
    let mut rng = FastRng::new(5);
    let config = PlayoutConfig::default();
    let mut capped = 0;
    for _ in 0..2000 {
        let mut b = Board::new();
        let r = playout::run(
            &mut b,
            Color::Black,
            &mut Uniform,
            &mut rng,
            &config,
            |_, _| {},
        );
        capped += r.capped as u32;
        let area = akushu::rules::score::area(&b);
        if !r.capped {
            // A finished light playout leaves only eyes and seki points empty, so almost every
            // point belongs to someone.
            assert!(area.black + area.white >= 70, "{b}");
        }
        assert_eq!(r.margin, area.margin(6.5));
    }
    assert!(capped < 20, "{capped} of 2000 playouts hit the move cap");
}
