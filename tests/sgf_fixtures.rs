//! Hand-written SGF fixtures, one per edge case the reader must handle (tests/fixtures/sgf).

use std::path::{Path, PathBuf};

use akushu::rules::{Color, IllegalMove, Move, Point};
use akushu::sgf::{
    self, GameRecord, ParseConfig, ReplayError, ResultKind, SgfError, Superko, parse_records,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sgf")
        .join(name)
}

fn parse(name: &str) -> Vec<Result<GameRecord, SgfError>> {
    let bytes = std::fs::read(fixture(name)).unwrap();
    parse_records(&bytes, name, name, ParseConfig::default())
}

fn one(name: &str) -> GameRecord {
    let mut v = parse(name);
    assert_eq!(v.len(), 1, "{name}");
    v.remove(0).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn err(name: &str) -> SgfError {
    parse(name).remove(0).expect_err(name)
}

fn gtp(s: &str) -> Move {
    Move::from_gtp(s).unwrap()
}

#[test]
fn ogs_nested_main_line_and_metadata() {
    let r = one("ogs_style.sgf");
    assert_eq!(r.moves.len(), 12);
    assert_eq!(r.moves[0], (Color::Black, gtp("E5")));
    assert_eq!(r.moves[11], (Color::White, gtp("D7")));
    assert_eq!(r.komi, Some(5.5));
    assert_eq!(r.rules.as_deref(), Some("Japanese"));
    assert_eq!((r.black_rank, r.white_rank), (Some(-2), Some(1)));
    assert_eq!(
        (r.black_name.as_str(), r.white_name.as_str()),
        ("alice", "bob")
    );
    assert_eq!(r.result.winner, Some(Color::White));
    assert_eq!(r.result.kind, ResultKind::Score(3.5));
    assert_eq!((r.date.as_str(), r.place.as_str()), ("2020-01-01", "test"));
    assert!(!r.had_variations);
    let g = sgf::replay::check(&r, Superko::Never).unwrap();
    assert_eq!(g.move_count(), 12);
}

#[test]
fn variations_follow_the_first_child() {
    let r = one("variations.sgf");
    assert!(r.had_variations);
    let want: Vec<Move> = ["E5", "C7", "G3", "C3", "G7"]
        .iter()
        .map(|s| gtp(s))
        .collect();
    assert_eq!(r.moves.iter().map(|m| m.1).collect::<Vec<_>>(), want);
}

#[test]
fn passes_both_ways_and_resumed_play() {
    let r = one("passes.sgf");
    let passes: Vec<bool> = r.moves.iter().map(|m| m.1 == Move::Pass).collect();
    assert_eq!(passes, [false, true, true, false, true, true, false]);
    assert_eq!(r.passes(), 4);
    // Two passes then a move: replay resumes instead of refusing.
    let g = sgf::replay::check(&r, Superko::Always).unwrap();
    assert_eq!(
        g.board().color_at(Point::from_rc(6, 6).unwrap()),
        Some(Color::Black)
    );
}

#[test]
fn handicap_setup_stones_and_white_first() {
    let r = one("handicap.sgf");
    assert_eq!(r.handicap, 2);
    assert_eq!(r.komi, Some(0.5));
    assert_eq!(r.setup_black.len(), 2);
    assert_eq!(r.moves[0].0, Color::White);
    let mut seen = Vec::new();
    sgf::replay(&r, Superko::Never, |s| {
        seen.push((s.number, s.color, s.board.stones(Color::Black).count_ones()));
    })
    .unwrap();
    assert_eq!(
        seen[0],
        (0, Color::White, 2),
        "the handicap stones are on the board"
    );
}

#[test]
fn ae_removes_and_pl_sets_the_first_player() {
    let r = one("setup_ae_pl.sgf");
    let pts = |v: &[Point]| v.iter().map(|p| p.to_sgf()).collect::<Vec<_>>();
    assert_eq!(pts(&r.setup_black), ["aa", "cc"]);
    assert_eq!(pts(&r.setup_white), ["ii"]);
    assert_eq!(pts(&r.setup_empty), ["bb"]);
    assert_eq!(r.first_player, Some(Color::White));
    let g = sgf::replay::check(&r, Superko::Never).unwrap();
    assert_eq!(g.board().stones(Color::Black).count_ones(), 3);
}

#[test]
fn komi_and_handicap_spellings_sgf_parse_rejects() {
    let r = one("komi_comma.sgf");
    assert_eq!((r.komi, r.handicap), (Some(6.5), 1));
    let r = one("komi_points.sgf");
    assert_eq!(r.komi, Some(7.0));
    assert_eq!(r.result.kind, ResultKind::Unknown);
    let r = one("komi_ff3.sgf");
    assert_eq!(r.komi, Some(5.5));
    assert_eq!(r.result.kind, ResultKind::Void);
}

#[test]
fn board_sizes() {
    assert_eq!(one("size_9x9.sgf").moves.len(), 2);
    assert_eq!(one("size_9x9.sgf").result.kind, ResultKind::Time);
    assert_eq!(err("size_19.sgf"), SgfError::BoardSize("19".into()));
    assert_eq!(err("no_size.sgf"), SgfError::BoardSize("19".into()));
    assert!(matches!(
        err("off_board.sgf"),
        SgfError::OffBoard {
            number: 2,
            color: 'W',
            ..
        }
    ));
}

#[test]
fn empty_truncated_and_garbage() {
    let r = one("empty.sgf");
    assert!(r.moves.is_empty());
    assert_eq!(r.result.kind, ResultKind::Void);
    assert!(matches!(err("truncated.sgf"), SgfError::Syntax(_)));
    assert!(matches!(
        err("garbage.sgf"),
        SgfError::Syntax(_) | SgfError::NoGame
    ));
    // Lenient mode recovers the moves before the cut, and still refuses garbage.
    let lenient = ParseConfig { lenient: true };
    let bytes = std::fs::read(fixture("truncated.sgf")).unwrap();
    let r = parse_records(&bytes, "t", "t", lenient).remove(0).unwrap();
    assert_eq!((r.moves.len(), r.recovered), (2, true));
    let bytes = std::fs::read(fixture("garbage.sgf")).unwrap();
    assert!(
        parse_records(&bytes, "g", "g", lenient)
            .iter()
            .all(|r| r.is_err())
    );
}

#[test]
fn illegal_moves_name_the_move_and_the_rule() {
    let check = |name: &str| sgf::replay::check(&one(name), Superko::Never).unwrap_err();
    let e = check("illegal_occupied.sgf");
    assert!(matches!(
        e,
        ReplayError::Illegal {
            number: 3,
            color: 'B',
            reason: IllegalMove::Occupied(_),
            ..
        }
    ));
    assert_eq!(
        e.to_string(),
        "move 3 B C7 is illegal: point C7 is occupied"
    );
    let e = check("illegal_suicide.sgf");
    assert!(matches!(
        e,
        ReplayError::Illegal {
            number: 5,
            reason: IllegalMove::Suicide(_),
            ..
        }
    ));
    let e = check("illegal_ko.sgf");
    assert!(matches!(
        e,
        ReplayError::Illegal {
            number: 10,
            reason: IllegalMove::Ko(_),
            ..
        }
    ));
    assert_eq!(e.kind(), "illegal-ko");
}

#[test]
fn collections_give_one_record_per_game() {
    let v = parse("collection.sgf");
    assert_eq!(v.len(), 2);
    let b = v[1].as_ref().unwrap();
    assert_eq!(b.id, "collection.sgf#2");
    assert_eq!(b.moves.len(), 3);
    assert_eq!(b.result.winner, Some(Color::White));
}

#[test]
fn encodings_never_lose_moves_or_results() {
    let r = one("shift_jis.sgf");
    assert_eq!(r.encoding, "Shift_JIS");
    assert_eq!(r.black_name, "表");
    assert_eq!(r.white_name, "ソ");
    assert_eq!(
        r.result.kind,
        ResultKind::Resign,
        "the name must not swallow RE"
    );
    assert_eq!(r.moves.len(), 2);
    let r = one("latin1_no_ca.sgf");
    assert_eq!(r.moves.len(), 2);
    assert_eq!(r.result.winner, Some(Color::White));
    assert!(!r.black_name.is_empty());
}

#[test]
fn huge_comments_are_fine() {
    let comment = "a long chat line with [escaped\\] brackets\n".repeat(50_000);
    let text = format!("(;GM[1]SZ[9]C[{comment}]RE[B+R];B[ee]C[{comment}];W[cc])");
    assert!(text.len() > 4_000_000);
    let v = parse_records(text.as_bytes(), "big", "big", ParseConfig::default());
    let r = v[0].as_ref().unwrap();
    assert_eq!(r.moves.len(), 2);
    assert_eq!(r.result.kind, ResultKind::Resign);
}

#[test]
fn sources_walk_folders_and_sgfs_lines() {
    let all = sgf::source::read_all(&[fixture("")]);
    let ids: Vec<String> = all
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .map(|r| r.id.clone())
        .collect();
    assert!(ids.contains(&"deep".to_string()), "recursive walk: {ids:?}");
    assert!(ids.contains(&"games#1".to_string()) && ids.contains(&"games#4".to_string()));
    assert!(
        !ids.iter().any(|i| i.contains("readme")),
        "non-SGF files are ignored"
    );
    // Sequence numbers are the input order.
    let seqs: Vec<u64> = all
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .map(|r| r.seq)
        .collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
    // A missing input is reported, not fatal.
    let missing = sgf::source::read_all(&[fixture("nope.sgf"), fixture("empty.sgf")]);
    assert!(missing[0].is_err() && missing[1].is_ok());
}
