//! Board analysis (paper E in `docs/papers.md`): connection patterns under every rotation, group merging,
//! influence and end-of-game territory on fixture boards, territory-gain candidates.

use akushu::board_analysis::{
    Chains, EndConfig, Groups, PATTERNS, PatternKind, best_gain_moves, connections, end_territory,
    influence, territory_gains,
};
use akushu::rules::{Bits, Board, Color, Point, bit};

fn pt(r: i32, c: i32) -> Point {
    Point::from_rc(r as usize, c as usize).unwrap()
}

fn board_with(black: &[Point], white: &[Point]) -> Board {
    let mut b = Board::new();
    b.setup(black, white, &[]).unwrap();
    b
}

/// The 8 symmetries of the square applied to an offset.
fn sym(k: usize, (r, c): (i8, i8)) -> (i8, i8) {
    let (r, c) = if k & 4 != 0 { (r, -c) } else { (r, c) };
    match k & 3 {
        0 => (r, c),
        1 => (c, -r),
        2 => (-r, -c),
        _ => (-c, r),
    }
}

#[test]
fn sixteen_patterns_in_the_papers_proportions() {
    assert_eq!(PATTERNS.len(), 16);
    let count = |k| PATTERNS.iter().filter(|p| p.kind == k).count();
    assert_eq!(count(PatternKind::Diagonal), 4);
    assert_eq!(count(PatternKind::OneSpaceJump), 2);
    assert_eq!(count(PatternKind::TwoSpaceJump), 2);
    assert_eq!(count(PatternKind::Knight), 4);
    assert_eq!(count(PatternKind::LargeKnight), 4);
    let between = |k| {
        PATTERNS
            .iter()
            .find(|p| p.kind == k)
            .unwrap()
            .between()
            .len()
    };
    assert_eq!(between(PatternKind::Diagonal), 2);
    assert_eq!(between(PatternKind::OneSpaceJump), 1);
    assert_eq!(between(PatternKind::TwoSpaceJump), 2);
    assert_eq!(between(PatternKind::Knight), 2);
    assert_eq!(between(PatternKind::LargeKnight), 4);
}

#[test]
fn every_pattern_is_found_in_every_rotation_with_its_connection_points() {
    for p in &PATTERNS {
        for k in 0..8 {
            let (dr, dc) = sym(k, (p.dr, p.dc));
            let a = pt(4, 4);
            let b = pt(4 + dr as i32, 4 + dc as i32);
            let expected: Bits = p
                .between()
                .into_iter()
                .map(|o| sym(k, o))
                .fold(0, |m, (r, c)| {
                    m | bit(pt(4 + r as i32, 4 + c as i32).index())
                });
            let board = board_with(&[a, b], &[]);
            let found = connections(&board, Color::Black);
            assert!(
                found
                    .iter()
                    .any(|c| c.kind == p.kind && c.points == expected),
                "{:?} symmetry {k}: offset ({dr},{dc}) not found, got {found:?}",
                p.kind
            );
            assert!(found.iter().all(|c| c.kind == p.kind));
            // an opponent stone on any connection point cuts it
            for q in akushu::rules::BitIter(expected) {
                let cut = board_with(&[a, b], &[Point::new(q)]);
                assert!(
                    connections(&cut, Color::Black).is_empty(),
                    "{:?} symmetry {k}: white at {} should cut",
                    p.kind,
                    Point::new(q)
                );
            }
        }
    }
}

#[test]
fn stones_too_far_apart_are_not_connected() {
    for (dr, dc) in [(0, 4), (2, 2), (4, 1), (3, 3)] {
        let board = board_with(&[pt(2, 2), pt(2 + dr, 2 + dc)], &[]);
        assert!(connections(&board, Color::Black).is_empty(), "({dr},{dc})");
    }
}

#[test]
fn groups_merge_chains_through_connections_to_the_smaller_number() {
    let board = Board::from_diagram(
        "
        . . . . . . . . .
        . X X . X . . . .
        . . . . . . . . .
        . . . . . X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . X
        . O . . . . . . .
        . . . . . . . . .",
    )
    .unwrap();
    let chains = Chains::of(&board);
    assert_eq!(chains.list.len(), 5);
    let groups = Groups::of(&board);
    // B8-C8 and E8 (one-space jump) and F6 (knight's move from E8) form one group
    assert_eq!(groups.list.len(), 3);
    let g = groups.id[pt(1, 1).index()];
    assert_eq!(g, 1, "the merged group keeps the smallest number");
    for p in [pt(1, 2), pt(1, 4), pt(3, 5)] {
        assert_eq!(groups.id[p.index()], g);
    }
    assert_eq!(groups.list[0].stones.count_ones(), 4);
    assert_ne!(groups.id[pt(6, 8).index()], g);
    assert_eq!(
        groups.list[0].connection_points & bit(pt(1, 3).index()),
        bit(pt(1, 3).index())
    );
    assert_eq!(groups.list[2].color, Color::White);
}

#[test]
fn influence_reaches_twelve_points_and_ties_go_to_nobody() {
    let one = board_with(&[pt(4, 4)], &[]);
    let inf = influence(&one);
    assert_eq!(inf.black.count_ones(), 13);
    assert_eq!(inf.white, 0);
    // black and white two apart: the point between is a tie
    let two = board_with(&[pt(4, 2)], &[pt(4, 4)]);
    let inf = influence(&two);
    assert_eq!(inf.black & bit(pt(4, 3).index()), 0);
    assert_eq!(inf.white & bit(pt(4, 3).index()), 0);
    assert_ne!(inf.black & bit(pt(4, 1).index()), 0);
    assert_ne!(inf.white & bit(pt(4, 5).index()), 0);
    assert_eq!(inf.net(Color::Black), 0);
}

#[test]
fn end_territory_removes_weak_groups_and_scans_four_directions() {
    let board = Board::from_diagram(
        "
        . . . . . . . . .
        . . . . . . . . .
        . . X X X X X . .
        . . X . . . X . .
        . . X . O . X . .
        . . X . . . X . .
        . . X X X X X . .
        . . . . . . . . .
        . . . . . . . . .",
    )
    .unwrap();
    let end = end_territory(&board, &EndConfig::default());
    let mut inside: Bits = 0;
    for r in 3..6 {
        for c in 3..6 {
            inside |= bit(pt(r, c).index());
        }
    }
    assert_eq!(
        end.removed,
        bit(pt(4, 4).index()),
        "the lone white stone is weak"
    );
    assert_eq!(
        end.black, inside,
        "the 3x3 inside (dead stone's point included)"
    );
    assert_eq!(end.white, 0);
    assert_eq!(end.area().black, 16 + 9);
    // with the weak limit at 0 the white stone stays and splits the count
    let strict = end_territory(&board, &EndConfig { weak_group_max: 0 });
    assert_eq!(strict.removed, 0);
    assert_eq!(strict.black & bit(pt(4, 4).index()), 0);
    assert!(strict.black.count_ones() < 9);
}

#[test]
fn territory_gain_on_the_empty_board() {
    let (gain, best) = best_gain_moves(&Board::new(), Color::Black);
    assert_eq!(gain, 13);
    assert_eq!(
        best.len(),
        25,
        "every point at least two lines from the edge"
    );
    let corner = territory_gains(&Board::new(), Color::White)
        .into_iter()
        .find(|m| m.point == pt(0, 0))
        .unwrap();
    assert_eq!(corner.gain, 6);
}

#[test]
fn analyze_report_shows_every_section() {
    let p = akushu::yose::Problem::load(std::path::Path::new("data/yose/y09.sgf")).unwrap();
    let text = akushu::cli::analyze::report(&p.board, p.to_move, &EndConfig::default(), 0);
    for section in [
        "chains (2)",
        "groups (2)",
        "influence territory",
        "end-of-game territory",
        "eyes: `e` real",
        "useless moves: `k` kake-me (34)",
        "best territory gain",
    ] {
        assert!(text.contains(section), "missing {section:?} in\n{text}");
    }
}

#[test]
fn analyze_tells_a_real_eye_from_a_false_one_and_calls_k_useless() {
    // Black A9 is a real corner eye (its diagonal B8 is black); E9 is a false edge eye
    // (white D8 on its diagonal). Both are useless moves for either side.
    //    A B C D E F G H J
    // 9  . X X X . X X . .
    // 8  X X X O X X . . .
    let p = |s: &str| akushu::rules::Move::from_gtp(s).unwrap().point().unwrap();
    let black: Vec<Point> = ["B9", "C9", "D9", "F9", "G9", "A8", "B8", "C8", "E8", "F8"]
        .map(p)
        .to_vec();
    let board = board_with(&black, &[p("D8")]);
    let text = akushu::cli::analyze::report(&board, Color::White, &EndConfig::default(), 0);
    let section = |title: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.starts_with(title))
            .skip(2)
            .take(9)
            .map(|l| l.split_whitespace().skip(1).take(9).collect())
            .collect()
    };
    let eyes = section("eyes: ");
    assert_eq!(eyes[0], "eXXXfXX..", "{text}");
    assert!(text.contains("eyes: `e` real (1), `f` false (1)"), "{text}");
    // `k` means a useless move, and its legend says so; no section calls it a false eye.
    assert!(text.contains("useless moves: `k`"), "{text}");
    assert!(!text.contains("kake-me marks"), "{text}");
}
