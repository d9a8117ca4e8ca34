//! The game layer above [`Board`]: side to move, history, positional superko, passes (two in
//! a row end the game), komi, undo and final scoring.

use std::collections::HashMap;

use super::board::{Board, Color, IllegalMove};
use super::coord::Move;
use super::score::{self, Count};
use super::tables::Bits;

/// Largest komi accepted anywhere (SGF `KM`, GTP `komi`, the command line, self-play, match,
/// loop and experiment files), in points either way. A 9x9 board has 81 points, but servers
/// record joke komi: the OGS archive holds KM[9999.5], KM[-9999] and KM[-5000] in games the
/// shipped datasets hold, so the range keeps those and refuses anything larger. (The teacher's
/// queries have the narrower range its protocol accepts: `dataset label --komi`.)
pub const MAX_KOMI: f32 = 10_000.0;

/// `komi` when it lies in `-MAX_KOMI..=MAX_KOMI`, else the one message every setting of a komi
/// gives, naming the setting `name` (`komi`, `min_komi`).
pub fn check_komi(name: &str, komi: f32) -> Result<f32, String> {
    crate::util::num::check(name, komi, -MAX_KOMI, MAX_KOMI)
}

/// clap parser for a komi (`--komi`): the range of [`check_komi`].
pub fn komi_arg(text: &str) -> Result<f32, String> {
    crate::util::num::parse_in("komi", text, -MAX_KOMI, MAX_KOMI)
}

/// Whether a komi read as a wider float (an SGF `KM`, a JSON number) is in the range of
/// [`check_komi`]; NaN never is.
pub fn komi_in_range(komi: f64) -> bool {
    (-f64::from(MAX_KOMI)..=f64::from(MAX_KOMI)).contains(&komi)
}

/// Scoring rule for the final result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scoring {
    /// Tromp-Taylor area scoring (stones + surrounded empty points): akushu's default.
    #[default]
    Area,
    /// Japanese-style: territory + prisoners (dead stones must be named).
    Territory,
}

/// A game in progress.
#[derive(Clone, Debug)]
pub struct Game {
    board: Board,
    /// The position before the first move: the empty board, or the setup stones (handicap,
    /// SGF `AB`/`AW`) that [`Game::from_board`] started from. Undo never goes past it.
    initial: Board,
    to_move: Color,
    komi: f32,
    /// Moves played so far, with their colour.
    moves: Vec<(Color, Move)>,
    /// Board before each move, for undo.
    snapshots: Vec<Board>,
    /// How often each position (by hash) occurs in the game so far (positional superko).
    /// Counted, not just present: with superko off a position may occur twice, and undoing
    /// one occurrence must not forget the other.
    seen: HashMap<u64, u32>,
    /// Consecutive passes at the end of `moves`.
    passes: u8,
    /// Whether positional superko is enforced (on by default).
    superko: bool,
}

impl Game {
    /// A new game on the empty board, black to move.
    pub fn new(komi: f32) -> Game {
        Game::from_board(Board::new(), Color::Black, komi)
    }

    /// A game starting from a set-up position (handicap stones, problems).
    pub fn from_board(board: Board, to_move: Color, komi: f32) -> Game {
        let seen = HashMap::from([(board.hash(), 1)]);
        Game {
            board,
            initial: board,
            to_move,
            komi,
            moves: Vec::new(),
            snapshots: Vec::new(),
            seen,
            passes: 0,
            superko: true,
        }
    }

    /// Turns positional superko on or off (records from servers that use simple ko only).
    pub fn set_superko(&mut self, on: bool) {
        self.superko = on;
    }

    pub fn board(&self) -> &Board {
        &self.board
    }
    /// The position the game started from (setup stones included), for writing records.
    pub fn initial_board(&self) -> &Board {
        &self.initial
    }
    pub fn to_move(&self) -> Color {
        self.to_move
    }
    /// Sets who moves next (SGF `PL`, GTP `play` out of turn).
    pub fn set_to_move(&mut self, c: Color) {
        self.to_move = c;
    }
    pub fn komi(&self) -> f32 {
        self.komi
    }
    pub fn set_komi(&mut self, komi: f32) {
        self.komi = komi;
    }
    pub fn moves(&self) -> &[(Color, Move)] {
        &self.moves
    }
    pub fn move_count(&self) -> usize {
        self.moves.len()
    }
    pub fn last_move(&self) -> Option<(Color, Move)> {
        self.moves.last().copied()
    }
    /// Two passes in a row end the game.
    pub fn is_over(&self) -> bool {
        self.passes >= 2
    }

    /// Checks `m` for `c` against every rule, superko included, without playing it.
    pub fn check(&self, c: Color, m: Move) -> Result<(), IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        let Move::Play(p) = m else { return Ok(()) };
        self.board.check(c, p)?;
        if self.superko {
            let mut after = self.board;
            after.play_legal(c, p);
            if self.seen.contains_key(&after.hash()) {
                return Err(IllegalMove::Superko(p));
            }
        }
        Ok(())
    }

    /// Plays `m` for the side to move.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        self.play_as(self.to_move, m)
    }

    /// Plays `m` for colour `c` (which need not be the side to move, as GTP allows); the
    /// opponent of `c` moves next.
    pub fn play_as(&mut self, c: Color, m: Move) -> Result<(), IllegalMove> {
        self.check(c, m)?;
        self.snapshots.push(self.board);
        match m {
            Move::Pass => {
                self.board.play_move(c, Move::Pass)?;
                self.passes += 1;
            }
            Move::Play(p) => {
                self.board.play_legal(c, p);
                *self.seen.entry(self.board.hash()).or_insert(0) += 1;
                self.passes = 0;
            }
        }
        self.moves.push((c, m));
        self.to_move = c.opponent();
        Ok(())
    }

    /// Plays `m` for `c` as [`Game::play_as`] does, but also after two passes: GTP's `play`
    /// (GTP 2 ends no game at two passes; a controller may play on to settle dead stones,
    /// as KataGo and GNU Go accept). The game then goes on: a stone clears the passes, a
    /// pass adds one to them.
    pub fn play_on(&mut self, c: Color, m: Move) -> Result<(), IllegalMove> {
        let passes = self.passes;
        // Checked as a game in progress; the count of passes is put back after.
        self.passes = 0;
        let played = self.play_as(c, m);
        self.passes = match (&played, m) {
            (Ok(()), Move::Play(_)) => 0,
            (Ok(()), Move::Pass) => passes.saturating_add(1),
            (Err(_), _) => passes,
        };
        played
    }

    /// Takes back the last move; false when there is none.
    pub fn undo(&mut self) -> bool {
        let (Some(before), Some((c, m))) = (self.snapshots.pop(), self.moves.pop()) else {
            return false;
        };
        if let Move::Play(_) = m {
            // One occurrence goes; the position stays seen while another remains.
            let hash = self.board.hash();
            if let Some(n) = self.seen.get_mut(&hash) {
                *n -= 1;
                if *n == 0 {
                    self.seen.remove(&hash);
                }
            }
        }
        self.board = before;
        self.to_move = c;
        self.passes = self
            .moves
            .iter()
            .rev()
            .take_while(|(_, m)| *m == Move::Pass)
            .count() as u8;
        true
    }

    /// Area (Tromp-Taylor) count.
    pub fn area(&self) -> Count {
        score::area(&self.board)
    }

    /// Black's margin under `scoring` with komi (dead stones only matter for territory).
    pub fn score(&self, scoring: Scoring, dead: Bits) -> f32 {
        match scoring {
            Scoring::Area => score::area(&self.board).margin(self.komi),
            Scoring::Territory => score::territory(&self.board, dead).margin(self.komi),
        }
    }

    /// The result text in SGF/GTP style: `B+3.5`, `W+0.5`, `0` for a draw.
    pub fn result_text(margin: f32) -> String {
        if margin > 0.0 {
            format!("B+{margin}")
        } else if margin < 0.0 {
            format!("W+{}", -margin)
        } else {
            "0".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Point;

    #[test]
    fn the_komi_flag_takes_the_rules_range_only() {
        for bad in ["NaN", "inf", "-inf", "1e300", "10000.5", "-20000"] {
            assert!(komi_arg(bad).is_err(), "{bad}");
        }
        assert_eq!(komi_arg("-6.5"), Ok(-6.5));
        assert_eq!(komi_arg("9999.5"), Ok(9999.5));
    }

    /// A position repeated while superko is off, then one occurrence undone: the other
    /// still counts once superko is on.
    #[test]
    fn undo_keeps_a_position_seen_while_another_occurrence_remains() {
        let start = Board::from_diagram(
            ".XO......\nXO.O.....\n.XO......\n.........\n.........\n.........\n.........\n.........\n.........",
        )
        .unwrap();
        let mut g = Game::from_board(start, Color::Black, 6.5);
        g.set_superko(false);
        g.play_as(Color::Black, Move::Play(Point::new(11))).unwrap(); // takes the ko
        g.play_as(Color::White, Move::Pass).unwrap();
        g.play_as(Color::White, Move::Play(Point::new(10))).unwrap(); // retakes: the start again
        assert_eq!(g.board().cells(), start.cells());
        assert!(g.undo());
        g.set_superko(true);
        assert_eq!(
            g.check(Color::White, Move::Play(Point::new(10))),
            Err(IllegalMove::Superko(Point::new(10)))
        );
    }
    /// After two passes `play_as` refuses, `play_on` plays: a stone reopens the game, an
    /// illegal move leaves it as it was, and passes end it again.
    #[test]
    fn play_on_goes_on_after_two_passes() {
        let mut g = Game::new(6.5);
        g.play_as(Color::Black, Move::Pass).unwrap();
        g.play_as(Color::White, Move::Pass).unwrap();
        let e5 = Move::Play(Point::new(40));
        assert_eq!(g.play_as(Color::Black, e5), Err(IllegalMove::GameOver));
        g.play_on(Color::Black, e5).unwrap();
        assert!(!g.is_over());
        assert!(g.play_on(Color::White, e5).is_err());
        g.play_on(Color::White, Move::Pass).unwrap();
        assert!(!g.is_over());
        g.play_on(Color::Black, Move::Pass).unwrap();
        assert!(g.is_over());
        assert!(g.play_on(Color::White, e5).is_err(), "occupied");
        assert!(g.is_over(), "a refused move leaves the passes");
        assert_eq!(g.move_count(), 5);
        assert!(g.undo());
        assert!(!g.is_over());
    }
}
