//! Ladder reading: does a chain in atari that extends to its last liberty escape, or is it
//! chased to death by repeated ataris (a ladder, shicho)?
//!
//! Extending out of atari to two liberties looks like an escape to a one-ply rule, so both
//! the heavy playouts and the priors used to run out every ladder. The playouts then never
//! chase the ladder (they capture chains in atari but do not give atari), so the engine
//! judged a dead chain alive and kept adding stones to it: a whole-board loss against GNU Go
//! (`gnugo_strong`, arm `cnn_policy_depth_1`, game 29). Pachi and Fuego read ladders in their playouts for
//! the same reason.
//!
//! The reader is the textbook one: after the escape the chain has two liberties; the
//! attacker tries an atari on each; the defender answers by capturing a neighbouring
//! attacker chain in atari (counted as an escape) or by extending again. Three liberties or
//! more is an escape, one is a capture. A budget of board moves bounds the work; a read that
//! runs out of it counts as an escape, so the reader only ever refuses moves it has read out.

use crate::rules::{BitIter, Bits, Board, Color, Point, bit};

/// Board moves one ladder read may play before it gives up (and calls the chain escaped).
/// A ladder across the 9x9 board takes about 16 moves; the rest is for side branches.
const BUDGET: u32 = 64;

/// True when `color` extending its chain in atari at `lib` (its only liberty) is caught in a
/// ladder. Extensions that reach three liberties or more, or that capture, are never caught;
/// an extension that leaves one liberty is.
pub fn escape_is_caught(board: &Board, color: Color, lib: Point) -> bool {
    if !board.is_legal(color, lib) {
        return false;
    }
    let mut b = *board;
    b.play_legal(color, lib);
    let mut budget = BUDGET;
    caught(&b, color, lib, &mut budget)
}

/// Attacker (`color`'s opponent) to move; true when `color`'s chain at `q` dies.
fn caught(board: &Board, color: Color, q: Point, budget: &mut u32) -> bool {
    let libs = board.chain_liberties(q);
    match libs.count_ones() {
        0 | 1 => true,
        2 => {
            let attacker = color.opponent();
            BitIter(libs).any(|l| {
                let l = Point::new(l);
                if *budget == 0 || !board.is_legal(attacker, l) {
                    return false;
                }
                *budget -= 1;
                let mut b = *board;
                b.play_legal(attacker, l);
                defender_fails(&b, color, q, budget)
            })
        }
        _ => false,
    }
}

/// `color` to move with its chain at `q` in atari; true when no answer saves it.
fn defender_fails(board: &Board, color: Color, q: Point, budget: &mut u32) -> bool {
    // one walk of the (often long) chain for its liberties and its neighbours
    let (chain, next_to) = board.chain_and_neighbours(q);
    let libs = next_to & board.empty_bits();
    if libs.count_ones() != 1 {
        // the attacker's move did not give atari (it captured itself out of a liberty
        // shortage, or the chain gained liberties): not a ladder
        return false;
    }
    let lib = Point::new(libs.trailing_zeros() as usize);
    let around = next_to & !chain & board.stones(color.opponent());
    if BitIter(around).any(|j| board.atari_liberty(Point::new(j)).is_some()) {
        return false;
    }
    if *budget == 0 {
        return false; // read out of budget: called an escape
    }
    if !board.is_legal(color, lib) {
        return true;
    }
    *budget -= 1;
    let mut b = *board;
    b.play_legal(color, lib);
    caught(&b, color, q, budget)
}

/// The atari that catches `color`'s opponent's chain at `q` (two liberties) in a ladder,
/// if one does: `color` plays there, and every answer of the chain fails.
pub fn ladder_atari(board: &Board, color: Color, q: Point) -> Option<Point> {
    let libs = board.chain_liberties(q);
    if libs.count_ones() != 2 {
        return None;
    }
    let mut budget = BUDGET;
    BitIter(libs).map(Point::new).find(|&l| {
        if budget == 0 || !board.is_legal(color, l) || board.is_self_atari_fast(color, l) {
            return false;
        }
        budget -= 1;
        let mut b = *board;
        b.play_legal(color, l);
        defender_fails(&b, color.opponent(), q, &mut budget)
    })
}

/// Ladder ataris for `color` against the opponent's two-liberty chains with a stone in
/// `area` (the heavy playout's chase move, and a capture prior).
pub fn ladder_ataris(board: &Board, color: Color, area: Bits) -> Bits {
    // only chains the pseudo-liberty counts allow two liberties (4 per liberty at most)
    let chains =
        board.chain_reps(board.stones(color.opponent()) & area) & board.low_liberty_chains(8);
    BitIter(chains)
        .filter_map(|q| ladder_atari(board, color, Point::new(q)))
        .fold(0, |m, l| m | bit(l.index()))
}

/// Every point where `color` would extend one of its chains in atari into a ladder that
/// catches it (for the priors: such a move only adds stones to a dead chain).
pub fn caught_escapes(board: &Board, color: Color) -> Bits {
    BitIter(board.atari_chains() & board.stones(color))
        .filter_map(|q| board.atari_liberty(Point::new(q)))
        .filter(|&lib| escape_is_caught(board, color, lib))
        .fold(0, |m, l| m | bit(l.index()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rules::Move;

    fn pt(gtp: &str) -> Point {
        Move::from_gtp(gtp).unwrap().point().unwrap()
    }

    /// Black D4 in atari at E4 under white's D5, C4, D3, E3; `extra` adds rows above.
    /// GNU Go 3.8 (`attack D4` after black E4) reads it as a ladder white wins with F4.
    pub(crate) fn ladder_with(row7: &str) -> Board {
        Board::from_diagram(&format!(
            ".........\n.........\n{row7}\n.........\n...O.....\n..OX.....\n...OO....\n\
             .........\n........."
        ))
        .unwrap()
    }

    #[test]
    fn a_plain_ladder_catches_the_escape() {
        let b = ladder_with(".........");
        assert_eq!(b.atari_liberty(pt("D4")), Some(pt("E4")));
        assert!(escape_is_caught(&b, Color::Black, pt("E4")));
        assert_eq!(caught_escapes(&b, Color::Black), bit(pt("E4").index()));
    }

    #[test]
    fn the_attacker_finds_the_ladder_atari() {
        // After black's E4, white F4 starts the ladder (GNU Go's `attack` answer).
        let mut b = ladder_with(".........");
        b.play_legal(Color::Black, pt("E4"));
        assert_eq!(ladder_atari(&b, Color::White, pt("D4")), Some(pt("F4")));
        assert_eq!(
            ladder_ataris(&b, Color::White, crate::rules::BOARD),
            bit(pt("F4").index())
        );
        let mut broken = ladder_with("......X..");
        broken.play_legal(Color::Black, pt("E4"));
        assert_eq!(ladder_atari(&broken, Color::White, pt("D4")), None);
    }

    #[test]
    fn a_ladder_breaker_lets_the_chain_escape() {
        // A black stone at G7 on the ladder's path (GNU Go: `attack` fails).
        let b = ladder_with("......X..");
        assert!(!escape_is_caught(&b, Color::Black, pt("E4")));
        assert_eq!(caught_escapes(&b, Color::Black), 0);
    }

    #[test]
    fn three_liberties_is_an_escape() {
        // Black D3 in atari at D4; extending there gives D5, C4 and E4.
        let b = Board::from_diagram(
            ".........\n.........\n.........\n.........\n.........\n.........\n..OXO....\n\
             ...O.....\n.........",
        )
        .unwrap();
        assert_eq!(b.atari_liberty(pt("D3")), Some(pt("D4")));
        assert!(!escape_is_caught(&b, Color::Black, pt("D4")));
    }

    #[test]
    fn the_game_29_crawl_is_read_as_dead() {
        // gnugo_strong/cnn_policy_depth_1 game 29 before black's 13th move: black E5-E4-F4
        // in atari at F3; running out along the second line dies (GNU Go: `attack E4` after
        // black F3 succeeds at F2), and black lost the game by it.
        let b = Board::from_diagram(
            ".........\n\
             .........\n\
             ...X.....\n\
             ...XO....\n\
             ..XOXO...\n\
             ...OXXO..\n\
             ....O....\n\
             .........\n\
             .........",
        )
        .unwrap();
        assert_eq!(b.atari_liberty(pt("E4")), Some(pt("F3")));
        assert!(escape_is_caught(&b, Color::Black, pt("F3")));
    }
}
