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

#[test]
fn play_random_is_random_move_then_play_and_keeps_state_exact() {
    // The playout's fused step (draw and move without a second suicide test) must play what
    // the draw followed by `play_legal` plays, from the same generator state.
    let inner = akushu::rules::BOARD & !akushu::rules::tables::ON_EDGE;
    let mut moves = 0;
    for game in 0..200u64 {
        let mut rng = FastRng::for_stream(77, game);
        let mut board = Board::new();
        let mut color = Color::Black;
        let mut passes = 0;
        for ply in 0..300 {
            let allowed = if ply % 3 == 0 {
                inner
            } else {
                akushu::rules::BOARD
            };
            let (mut reference, mut rng_ref) = (board, rng.clone());
            let expected = reference.random_move(color, allowed, &mut rng_ref);
            if let Some(p) = expected {
                reference.play_legal(color, p);
            }
            let got = board.play_random(color, allowed, &mut rng);
            assert_eq!(got, expected, "game {game} ply {ply}");
            assert_eq!(board.cells(), reference.cells(), "game {game} ply {ply}");
            assert_eq!(
                board.ko_point(),
                reference.ko_point(),
                "game {game} ply {ply}"
            );
            assert_eq!(board.hash(), reference.hash());
            board
                .check_invariants()
                .unwrap_or_else(|e| panic!("game {game} ply {ply}: {e}\n{board}"));
            if got.is_none() {
                board.play_move(color, Move::Pass).unwrap();
                passes += 1;
                if passes >= 2 {
                    break;
                }
            } else {
                passes = 0;
                moves += 1;
            }
            color = color.opponent();
        }
    }
    assert!(moves > 10_000, "only {moves} moves played");
}

#[test]
fn playouts_alternate_colours_from_either_side_and_respect_the_cap() {
    for (first, cap) in [
        (Color::White, 243),
        (Color::Black, 243),
        (Color::White, 1),
        (Color::Black, 2),
        (Color::White, 0),
    ] {
        let mut rng = FastRng::new(3);
        let mut board = Board::new();
        let mut seen = Vec::new();
        let config = PlayoutConfig {
            max_moves: cap,
            ..PlayoutConfig::default()
        };
        let r = playout::run(
            &mut board,
            first,
            &mut Uniform,
            &mut rng,
            &config,
            |c, m| seen.push((c, m)),
        );
        assert_eq!(seen.len() as u32, r.moves);
        assert!(r.moves <= cap);
        for (k, &(c, _)) in seen.iter().enumerate() {
            let expected = if k % 2 == 0 { first } else { first.opponent() };
            assert_eq!(c, expected, "move {k} of a playout started by {first:?}");
        }
        if r.capped {
            assert_eq!(r.moves, cap, "capped before the cap");
        } else {
            let n = seen.len();
            assert!(n >= 2 && seen[n - 2].1 == Move::Pass && seen[n - 1].1 == Move::Pass);
        }
        if cap < 3 {
            assert!(r.capped && r.moves == cap, "a short cap stops the playout");
        }
        board.check_invariants().unwrap();
    }
}

#[test]
fn masked_policy_plays_what_it_chooses() {
    use akushu::playout::{Masked, PlayoutPolicy};
    // Its fused `play` must match `choose` + `play_legal`, the fallback to every point
    // included (the centre mask runs out long before the game ends).
    let mut policy = Masked {
        allowed: akushu::rules::BOARD & !akushu::rules::tables::ON_EDGE,
    };
    let mut fallbacks = 0;
    for game in 0..100u64 {
        let mut rng = FastRng::for_stream(5, game);
        let mut board = Board::new();
        let mut color = Color::Black;
        for _ in 0..250 {
            let (mut reference, mut rng_ref) = (board, rng.clone());
            let expected = policy.choose(&mut reference, color, &mut rng_ref);
            if let Some(p) = expected {
                reference.play_legal(color, p);
                fallbacks += (policy.allowed & akushu::rules::bit(p.index()) == 0) as u32;
            }
            let got = policy.play(&mut board, color, &mut rng);
            assert_eq!(got, expected);
            assert_eq!(board.cells(), reference.cells());
            board.check_invariants().unwrap();
            let Some(_) = got else { break };
            color = color.opponent();
        }
    }
    assert!(fallbacks > 100, "the fallback ran only {fallbacks} times");
}

/// `Board::is_legal` (the fast check the tree and the playouts use) against the full check
/// built from the naive rules: the point is empty, the move is not suicide, and it does not
/// recreate the position before the opponent's last move (a simple-ko retake), on every
/// empty point of random positions, for the side to move.
#[test]
fn is_legal_agrees_with_the_naive_rules_and_the_ko_repetition() {
    let (mut checked, mut kos) = (0, 0);
    for game in 0..50u64 {
        let mut rng = FastRng::for_stream(31, game);
        let mut board = Board::new();
        let mut before_last = *board.cells();
        let mut color = Color::Black;
        for _ in 0..160 {
            for p in Point::all() {
                let full = board.cells()[p.index()] == 0
                    && naive_play(board.cells(), color as u8, p.index())
                        .is_some_and(|next| next != before_last);
                assert_eq!(
                    board.is_legal(color, p),
                    full,
                    "game {game}: {color:?} at {p}\n{board}"
                );
                checked += 1;
            }
            kos += usize::from(board.ko_point().is_some());
            before_last = *board.cells();
            match board.random_move(color, akushu::rules::BOARD, &mut rng) {
                Some(p) => {
                    board.play(color, p).unwrap();
                }
                None => break,
            }
            color = color.opponent();
        }
    }
    assert!(
        checked > 200_000 && kos > 10,
        "{checked} points, {kos} ko positions"
    );
}
