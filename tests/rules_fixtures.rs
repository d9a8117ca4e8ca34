//! Rules tests on board diagrams (`.` empty, `X` black, `O` white; top row first).

use akushu::rules::{Board, Color, Game, IllegalMove, Move, Point, Scoring, score};

fn pt(gtp: &str) -> Point {
    Move::from_gtp(gtp).unwrap().point().unwrap()
}

fn board(diagram: &str) -> Board {
    let b = Board::from_diagram(diagram).expect("valid diagram");
    b.check_invariants().unwrap();
    b
}

fn assert_diagram(b: &Board, expected: &str) {
    assert_eq!(b.cells(), board(expected).cells(), "board is\n{b}");
    b.check_invariants().unwrap();
}

#[test]
fn single_capture_in_the_middle() {
    let mut b = board(
        ". . . . . . . . .
         . . . . . . . . .
         . . . . X . . . .
         . . . X O X . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .",
    );
    assert_eq!(b.liberty_count(pt("E6")), 1);
    assert_eq!(b.play(Color::Black, pt("E5")), Ok(1));
    assert_eq!(b.color_at(pt("E6")), None);
    assert_eq!(b.captures(Color::Black), 1);
    assert_eq!(b.liberty_count(pt("E5")), 4);
}

#[test]
fn one_move_captures_two_chains_in_the_corner() {
    let mut b = board(
        ". O X . . . . . .
         O X . . . . . . .
         X . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .",
    );
    // A9 is surrounded by white but capturing both black stones makes it legal.
    assert_eq!(b.play(Color::Black, pt("A9")), Ok(2));
    assert_diagram(
        &b,
        "X . X . . . . . .
         . X . . . . . . .
         X . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .",
    );
}

#[test]
fn multi_stone_capture_restores_liberties() {
    let mut b = board(
        ". . . . . . . . .
         . . X X X . . . .
         . X O O O . . . .
         . . X X X . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .",
    );
    assert_eq!(b.liberty_count(pt("C7")), 1);
    let top_before = b.liberty_count(pt("C8"));
    assert_eq!(b.play(Color::Black, pt("F7")), Ok(3));
    assert_eq!(b.liberty_count(pt("C7")), 0, "captured points are empty");
    assert_eq!(b.captures(Color::Black), 3);
    // The chain above gained C7, D7, E7 as liberties.
    assert_eq!(b.liberty_count(pt("C8")), top_before + 3);
    b.check_invariants().unwrap();
}

#[test]
fn suicide_is_illegal_but_capturing_is_not() {
    let mut b = board(
        ". X . . . . . . .
         X . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . O X
         . . . . . . . X .",
    );
    assert_eq!(
        b.play(Color::White, pt("A9")),
        Err(IllegalMove::Suicide(pt("A9")))
    );
    // multi-stone suicide: white filling its last liberty
    let mut c = board(
        ". O X . . . . . .
         O O X . . . . . .
         X X . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .",
    );
    assert_eq!(
        c.play(Color::White, pt("A9")),
        Err(IllegalMove::Suicide(pt("A9")))
    );
    assert_eq!(c.play(Color::Black, pt("A9")), Ok(3));
    // J1 for white would capture nothing: J2 and H1 keep other liberties.
    assert_eq!(
        b.play(Color::White, pt("J1")),
        Err(IllegalMove::Suicide(pt("J1")))
    );
    assert_eq!(
        b.play(Color::Black, pt("B9")),
        Err(IllegalMove::Occupied(pt("B9")))
    );
}

#[test]
fn simple_ko_forbids_immediate_retake_only() {
    let mut g = Game::from_board(
        board(
            ". . . . . . . . .
             . . X O . . . . .
             . X O . O . . . .
             . . X O . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .",
        ),
        Color::Black,
        6.5,
    );
    g.play(Move::from_gtp("D7").unwrap()).unwrap(); // black takes the ko stone C7
    assert_eq!(g.board().ko_point(), Some(pt("C7")));
    assert_eq!(g.board().captures(Color::Black), 1);
    assert_eq!(
        g.check(Color::White, Move::Play(pt("C7"))),
        Err(IllegalMove::Ko(pt("C7")))
    );
    g.play(Move::from_gtp("H2").unwrap()).unwrap(); // white ko threat elsewhere
    g.play(Move::from_gtp("H3").unwrap()).unwrap(); // black answers
    g.play(Move::from_gtp("C7").unwrap()).unwrap(); // now white may retake
    assert_eq!(g.board().color_at(pt("D7")), None);
    assert_eq!(g.board().ko_point(), Some(pt("D7")));
}

/// Three kos on the left edge: the six-move cycle repeats the start position without ever
/// breaking simple ko, so only positional superko stops it.
#[test]
fn triple_ko_is_stopped_by_positional_superko() {
    let start = board(
        ". X O . . . . . .
         X . X O . . . . .
         . X O . . . . . .
         . X O . . . . . .
         X O . O . . . . .
         . X O . . . . . .
         . X O . . . . . .
         X O . O . . . . .
         . X O . . . . . .",
    );
    let mut g = Game::from_board(start, Color::Black, 6.5);
    for m in ["C5", "B8", "C2", "B5", "C8"] {
        g.play(Move::from_gtp(m).unwrap())
            .unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    assert_eq!(
        g.board().check(Color::White, pt("B2")),
        Ok(()),
        "simple ko allows it"
    );
    assert_eq!(
        g.play(Move::from_gtp("B2").unwrap()),
        Err(IllegalMove::Superko(pt("B2")))
    );
    // with superko off (simple-ko servers) the cycle goes on and the position repeats
    g.set_superko(false);
    g.play(Move::from_gtp("B2").unwrap()).unwrap();
    assert_eq!(g.board().cells(), start.cells());
}

#[test]
fn snapback() {
    let mut b = board(
        ". . O X . . . . .
         O O O X . . . . .
         X X X . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .",
    );
    assert_eq!(b.play(Color::Black, pt("B9")), Ok(0)); // throw-in, self-atari
    assert_eq!(b.liberty_count(pt("B9")), 1);
    assert_eq!(b.liberty_count(pt("A8")), 1, "white is in atari too");
    assert_eq!(b.play(Color::White, pt("A9")), Ok(1)); // white takes: no ko (not a lone stone)
    assert_eq!(b.ko_point(), None);
    assert_eq!(b.play(Color::Black, pt("B9")), Ok(5)); // snapback: five stones
    assert_diagram(
        &b,
        ". X . X . . . . .
         . . . X . . . . .
         X X X . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .",
    );
}

#[test]
fn eyes_true_false_and_edges() {
    let b = board(
        ". X . X O . . . .
         X X X X . . . . .
         . . . . . . . . .
         . . X . X . . . .
         . . . . . . . . .
         . . . . . X . X .
         . . . . X . X O .
         . . . . . X . . .
         . . . . . . . . .",
    );
    assert!(b.is_eye(Color::Black, pt("A9")), "corner eye");
    assert!(b.is_eye(Color::Black, pt("C9")), "edge eye");
    assert!(!b.is_eye(Color::White, pt("A9")));
    assert!(
        !b.is_eye(Color::Black, pt("D6")),
        "open diagonal-only shape is no eye"
    );
    // F3 has black on all four sides, one white diagonal (G2 empty, G4? ) -> still an eye
    let c = board(
        ". . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . O . . . .
         . . . . . X . . .
         . . . . X . X . .
         . . . . O X . . .
         . . . . . . . . .",
    );
    assert!(
        c.is_eye(Color::Black, pt("F3")),
        "one opposing diagonal in the middle is fine"
    );
    let d = board(
        ". . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . O X O . .
         . . . . X . X . .
         . . . . . X . . .
         . . . . . . . . .",
    );
    assert!(
        !d.is_eye(Color::Black, pt("F3")),
        "two opposing diagonals make a false eye"
    );
    let e = board(
        ". . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . O X . .
         . . . . . X . X .",
    );
    assert!(
        !e.is_eye(Color::Black, pt("G1")),
        "one opposing diagonal on the edge: false eye"
    );
}

#[test]
fn area_scoring_counts_seki_liberties_for_nobody() {
    // Top-left: black A9-A7-B7 and white C9-C7 share the liberties B9 and B8 only: seki.
    let b = board(
        "X . O X . . . . .
         X . O X . . . . .
         X X O X . . . . .
         O O X X . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .",
    );
    assert_eq!(b.liberty_count(pt("A9")), 2);
    assert_eq!(b.liberty_count(pt("C9")), 2);
    for p in ["B9", "B8"] {
        assert!(b.is_self_atari(Color::Black, pt(p)) && b.is_self_atari(Color::White, pt(p)));
    }
    let area = score::area(&b);
    // Every empty point touches both colours: only stones count.
    assert_eq!(area, score::Count { black: 9, white: 5 });
    let g = Game::from_board(b, Color::Black, 6.5);
    assert_eq!(g.score(Scoring::Area, 0), 9.0 - 5.0 - 6.5);
    assert_eq!(Game::result_text(-2.5), "W+2.5");
    assert_eq!(Game::result_text(3.0), "B+3");

    // Enclosed regions count for their owner, a region touching both for nobody.
    let c = board(
        ". X O . . . . . .
         X X O . . . . . .
         O O O . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .",
    );
    assert_eq!(
        score::area(&c),
        score::Count {
            black: 4,
            white: 77
        }
    );
}

#[test]
fn territory_count_uses_prisoners_and_dead_stones() {
    let b = board(
        ". . X O . . . . .
         . . X O . . . . .
         . . X O . . . . .
         . . X O . . . . .
         . O X O . . . . .
         . . X O . . . . .
         . . X O . . . . .
         . . X O . . . . .
         . . X O . . . . .",
    );
    let dead = akushu::rules::bit(pt("B5").index());
    let c = score::territory(&b, dead);
    assert_eq!(
        c.black,
        18 + 1,
        "18 points of territory and one dead white stone"
    );
    assert_eq!(c.white, 45);
    let alive = score::territory(&b, 0);
    assert_eq!(
        alive.black, 0,
        "with the white stone alive, nothing on the left is black's"
    );
}

#[test]
fn passes_end_the_game_and_undo_restores() {
    let mut g = Game::new(6.5);
    g.play(Move::from_gtp("E5").unwrap()).unwrap();
    g.play(Move::Pass).unwrap();
    assert!(!g.is_over());
    g.play(Move::Pass).unwrap();
    assert!(g.is_over());
    assert_eq!(
        g.play(Move::from_gtp("A1").unwrap()),
        Err(IllegalMove::GameOver)
    );
    assert!(g.undo());
    assert!(!g.is_over());
    assert_eq!(g.to_move(), Color::Black);
    assert!(g.undo() && g.undo());
    assert_eq!(g.board().stones(Color::Black), 0);
    assert!(!g.undo());
    // E5 can be played again after undo (its hash was forgotten)
    g.play(Move::from_gtp("E5").unwrap()).unwrap();
}

#[test]
fn bad_diagrams_are_errors() {
    assert!(Board::from_diagram(". . .").is_err());
    let zero_liberty = "O X . . . . . . .\nX . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .";
    assert!(Board::from_diagram(zero_liberty).is_err());
}
