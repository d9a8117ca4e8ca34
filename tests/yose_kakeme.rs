//! The kake-me test, the dame test and the defender extension (paper C in `docs/papers.md`).

use akushu::prune::{PruneContext, Pruner};
use akushu::rules::{Bits, Board, Color, NN, Point, bit};
use akushu::yose::kakeme::{possible_eyes, two_eyes_possible};
use akushu::yose::{
    KakemeConfig, KakemePruner, Problem, dame_mask, dead_regions, defender_mask, kakeme_mask,
};

fn pt(r: usize, c: usize) -> Point {
    Point::from_rc(r, c).unwrap()
}

fn mask(points: &[(usize, usize)]) -> Bits {
    points
        .iter()
        .fold(0, |m, &(r, c)| m | bit(pt(r, c).index()))
}

/// Paper C's Figure-1 situation: black lives with a one-line territory along the top edge
/// and a small corner; white can never make two eyes in either.
const FIGURE_1: &str = "
    . . . . . . X O .
    X X X X X X X O O
    . . X . O O O O .
    X X X . O . O O O
    X X X . O O O O O
    X X X . O O O O O
    X X X . O O O O O
    X X X . O O O O O
    X X X . O O O O O";

#[test]
fn figure_1_region_is_pruned_for_both_colours() {
    let board = Board::from_diagram(FIGURE_1).unwrap();
    let marked = kakeme_mask(&board);
    let lane = mask(&[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]);
    let corner = mask(&[(2, 0), (2, 1)]);
    assert_eq!(marked & lane, lane, "the one-line black territory");
    assert_eq!(marked & corner, corner, "the two-point black pocket");
    let pruner = KakemePruner::new(KakemeConfig::default());
    for to_move in [Color::Black, Color::White] {
        let mut out = [0.0f32; NN];
        pruner.badness(
            &PruneContext {
                board: &board,
                to_move,
                recent: &[],
            },
            &mut out,
        );
        for i in akushu::rules::BitIter(lane | corner) {
            assert_eq!(out[i], 1.0, "{to_move:?} at {}", Point::new(i));
        }
        // the open boundary column stays a candidate for both
        assert_eq!(out[pt(5, 3).index()], 0.0);
    }
    let regions = dead_regions(&board);
    assert!(
        regions
            .iter()
            .any(|r| r.owner == Color::Black && r.points == lane)
    );
}

#[test]
fn a_region_where_two_eyes_are_possible_stays() {
    // the same black group, but the top territory is two lines deep and long: the invader
    // keeps three first-line points that could become eyes
    let board = Board::from_diagram(
        "
        . . . . . . X O .
        . . . . . . X O O
        X X X X X X X O .
        X . X . O O O O O
        X X X . O . O O O
        X X X . O O O O O
        X X X . O O O O O
        X X X . O O O O O
        X X X . O O O O O",
    )
    .unwrap();
    let marked = kakeme_mask(&board);
    let top: Bits = (0..2)
        .flat_map(|r| (0..6).map(move |c| (r, c)))
        .fold(0, |m, (r, c)| m | bit(pt(r, c).index()));
    assert_eq!(marked & top, 0, "{board}");
    // the single-point eyes are still pruned
    assert_ne!(marked & bit(pt(3, 1).index()), 0);
}

#[test]
fn eye_counting_rules() {
    assert!(!two_eyes_possible(0));
    assert!(!two_eyes_possible(mask(&[(0, 0)])));
    assert!(
        !two_eyes_possible(mask(&[(0, 0), (0, 1)])),
        "two adjacent points are one eye"
    );
    assert!(two_eyes_possible(mask(&[(0, 0), (0, 2)])));
    assert!(two_eyes_possible(mask(&[(0, 0), (0, 1), (0, 2)])));
    // a first-line point with one owner stone diagonally cannot be an eye; in the middle it
    // takes two
    let owner = mask(&[(1, 1)]);
    assert_eq!(possible_eyes(mask(&[(0, 0)]), owner), 0);
    assert_eq!(possible_eyes(mask(&[(2, 2)]), owner), mask(&[(2, 2)]));
    let two = mask(&[(1, 1), (3, 3)]);
    assert_eq!(possible_eyes(mask(&[(2, 2)]), two), 0);
    // next to an owner stone: never an eye
    assert_eq!(possible_eyes(mask(&[(1, 2)]), owner), 0);
}

#[test]
fn a_region_holding_invader_stones_is_not_pruned() {
    let mut board = Board::from_diagram(FIGURE_1).unwrap();
    board.play(Color::White, pt(0, 3)).unwrap();
    let marked = kakeme_mask(&board);
    assert_eq!(marked & mask(&[(0, 0), (0, 2), (0, 4), (0, 5)]), 0);
    // the black pocket elsewhere is still pruned
    assert_ne!(marked & bit(pt(2, 0).index()), 0);
}

const FIGURE_DAME: &str = "
    . . . X . O . . .
    . . . X . O . . .
    . . . X . O . . .
    . . . X . O . . .
    . . . X . O . . .
    . . . X . O . . .
    . . . X . O . . .
    . . . X . O . . .
    . . . X . O . . .";

#[test]
fn dame_test_marks_points_no_one_can_make_an_eye_of() {
    let board = Board::from_diagram(FIGURE_DAME).unwrap();
    let dame = dame_mask(&board);
    let column: Bits = (0..9).fold(0, |m, r| m | bit(pt(r, 4).index()));
    assert_eq!(
        dame, column,
        "the column between the walls, and nothing else"
    );
    // open the white wall on the edge: F9 could become a white eye, so its neighbour E9
    // is no longer dame, while E7 further down still is
    let opened =
        Board::from_diagram(&FIGURE_DAME.replacen(". . . X . O . . .", ". . . X . . . . .", 1))
            .unwrap();
    let d2 = dame_mask(&opened);
    assert_eq!(d2 & bit(pt(0, 4).index()), 0);
    assert_ne!(d2 & bit(pt(2, 4).index()), 0);
}

#[test]
fn defender_extension_seals_the_lanes_behind_a_gap_but_keeps_the_key_points() {
    let p = Problem::load(std::path::Path::new("data/yose/y11.sgf")).unwrap();
    assert_eq!(
        kakeme_mask(&p.board) & mask(&[(0, 0), (4, 0)]),
        0,
        "not sealed yet"
    );
    let d = defender_mask(&p.board, p.to_move);
    let lane: Bits = (0..9).fold(0, |m, r| m | bit(pt(r, 0).index()));
    assert_eq!(d & lane, lane, "black can always seal the first-line lane");
    for key in [(2, 3), (2, 2), (2, 4)] {
        assert_eq!(d & bit(pt(key.0, key.1).index()), 0, "{key:?} must stay");
    }
    let pruner = KakemePruner::new(KakemeConfig {
        defender: true,
        ..KakemeConfig::default()
    });
    assert_eq!(pruner.removed(&p.board, p.to_move) & lane, lane);
    assert_eq!(pruner.name(), "kakeme+defender");
}
