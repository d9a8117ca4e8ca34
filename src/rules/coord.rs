//! Every coordinate system akushu speaks, and the only conversions between them.
//!
//! | system      | example            | meaning                                                        |
//! |-------------|--------------------|----------------------------------------------------------------|
//! | flat index  | `0..=80`, pass `81`| `row * 9 + col`; the paper's numbering "from a corner row by row" |
//! | (row, col)  | `(0, 0)`           | row 0 is the **top** row (SGF `a`, GTP `9`), col 0 the left column |
//! | GTP vertex  | `A9` = (0,0), `J1` = (8,8) | column letters `A`..`J` without `I`, rows `1`..`9` counted from the **bottom**; case-insensitive; `pass` |
//! | SGF point   | `aa` = (0,0), `ii` = (8,8) | first letter = column, second = row, both from the top-left; `""` and `tt` are passes |
//!
//! Bit `i` of a [`Bits`](crate::rules::Bits) mask stands for flat index `i`.
//! Everything outside this module uses [`Point`] and [`Move`] and calls these conversions;
//! nothing else parses or prints coordinates.

use std::fmt;
use thiserror::Error;

/// Side length of the board. akushu plays 9x9 only.
pub const N: usize = 9;
/// Number of points on the board.
pub const NN: usize = N * N;
/// The flat index that stands for a pass.
pub const PASS_INDEX: usize = NN;
/// The one-byte code for "no point" in compact records (a dataset's last moves and ko point).
/// Defined with the coordinates so that both SGF replay and the dataset format can use it.
pub const NO_POINT: u8 = u8::MAX;

/// GTP column letters: `I` is skipped by convention.
const GTP_COLS: &[u8; 9] = b"ABCDEFGHJ";

/// A coordinate that could not be read or lies off the board.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CoordError {
    #[error("empty coordinate")]
    Empty,
    #[error("invalid GTP vertex {0:?} (expected A1..J9 without I, or pass)")]
    BadGtp(String),
    #[error("invalid SGF point {0:?} (expected two letters a..s, or tt / empty for pass)")]
    BadSgf(String),
    #[error("point ({row}, {col}) is off the 9x9 board")]
    OffBoard { row: usize, col: usize },
    #[error("flat index {0} is off the board (0..=80, 81 = pass)")]
    BadIndex(usize),
}

/// A point on the 9x9 board (never a pass).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u8);

impl Point {
    /// The point with flat index `i`; `i` must be below 81.
    #[inline]
    pub const fn new(i: usize) -> Point {
        debug_assert!(i < NN);
        Point(i as u8)
    }

    /// Checked construction from a flat index.
    pub fn from_index(i: usize) -> Result<Point, CoordError> {
        if i < NN {
            Ok(Point(i as u8))
        } else {
            Err(CoordError::BadIndex(i))
        }
    }

    /// Checked construction from (row, col), row 0 at the top.
    pub fn from_rc(row: usize, col: usize) -> Result<Point, CoordError> {
        if row < N && col < N {
            Ok(Point((row * N + col) as u8))
        } else {
            Err(CoordError::OffBoard { row, col })
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    #[inline]
    pub const fn row(self) -> usize {
        self.0 as usize / N
    }
    #[inline]
    pub const fn col(self) -> usize {
        self.0 as usize % N
    }
    /// All 81 points in flat-index order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..NN).map(Point::new)
    }

    /// GTP vertex text, e.g. `C7`.
    pub fn to_gtp(self) -> String {
        format!("{}{}", GTP_COLS[self.col()] as char, N - self.row())
    }

    /// SGF point text, e.g. `cc`.
    pub fn to_sgf(self) -> String {
        format!(
            "{}{}",
            (b'a' + self.col() as u8) as char,
            (b'a' + self.row() as u8) as char
        )
    }
}

impl fmt::Debug for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_gtp())
    }
}
impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_gtp())
    }
}

/// A move: a stone on a point, or a pass.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Move {
    Play(Point),
    Pass,
}

impl Move {
    /// Flat index 0..=80, or 81 for a pass.
    pub fn index(self) -> usize {
        match self {
            Move::Play(p) => p.index(),
            Move::Pass => PASS_INDEX,
        }
    }

    /// Inverse of [`Move::index`].
    pub fn from_index(i: usize) -> Result<Move, CoordError> {
        if i == PASS_INDEX {
            Ok(Move::Pass)
        } else {
            Point::from_index(i).map(Move::Play)
        }
    }

    pub fn point(self) -> Option<Point> {
        match self {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        }
    }

    /// Reads a GTP vertex (`A1`..`J9`, no `I`, any case) or `pass`.
    pub fn from_gtp(text: &str) -> Result<Move, CoordError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(CoordError::Empty);
        }
        if t.eq_ignore_ascii_case("pass") {
            return Ok(Move::Pass);
        }
        let bad = || CoordError::BadGtp(t.to_string());
        let bytes = t.as_bytes();
        let letter = bytes[0].to_ascii_uppercase();
        let col = GTP_COLS.iter().position(|&c| c == letter).ok_or_else(bad)?;
        let num: usize = t[1..].parse().map_err(|_| bad())?;
        if !(1..=N).contains(&num) || !t[1..].bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        Ok(Move::Play(Point::from_rc(N - num, col)?))
    }

    pub fn to_gtp(self) -> String {
        match self {
            Move::Play(p) => p.to_gtp(),
            Move::Pass => "pass".to_string(),
        }
    }

    /// Reads an SGF move value on a board of side `size` (up to 19). `""` is a pass, and so is
    /// `tt` on boards up to 19x19 (the FF[3] convention). A point that lies outside a 9x9 board
    /// is an error even when it is valid SGF.
    pub fn from_sgf(text: &str, size: usize) -> Result<Move, CoordError> {
        let t = text.trim();
        if t.is_empty() || (size <= 19 && t == "tt") {
            return Ok(Move::Pass);
        }
        let b = t.as_bytes();
        if b.len() != 2 || !b.iter().all(|c| c.is_ascii_lowercase()) {
            return Err(CoordError::BadSgf(t.to_string()));
        }
        let col = (b[0] - b'a') as usize;
        let row = (b[1] - b'a') as usize;
        Ok(Move::Play(Point::from_rc(row, col)?))
    }

    pub fn to_sgf(self) -> String {
        match self {
            Move::Play(p) => p.to_sgf(),
            Move::Pass => String::new(),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_gtp())
    }
}

impl From<Point> for Move {
    fn from(p: Point) -> Move {
        Move::Play(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_round_trip_and_corners() {
        assert_eq!(Move::from_gtp("A9").unwrap(), Move::Play(Point::new(0)));
        assert_eq!(Move::from_gtp("j1").unwrap(), Move::Play(Point::new(80)));
        assert_eq!(
            Move::from_gtp("A1").unwrap(),
            Move::Play(Point::from_rc(8, 0).unwrap())
        );
        assert_eq!(Move::from_gtp("PASS").unwrap(), Move::Pass);
        for p in Point::all() {
            assert_eq!(Move::from_gtp(&p.to_gtp()).unwrap(), Move::Play(p));
            assert_eq!(Move::from_sgf(&p.to_sgf(), 9).unwrap(), Move::Play(p));
            assert_eq!(Move::from_index(p.index()).unwrap(), Move::Play(p));
        }
        assert_eq!(Move::from_index(81).unwrap(), Move::Pass);
    }

    #[test]
    fn gtp_errors() {
        for bad in ["", "I5", "A0", "A10", "K1", "Z3", "A", "5A", "A+1", "A 1"] {
            assert!(Move::from_gtp(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn sgf_passes_and_errors() {
        assert_eq!(Move::from_sgf("", 9).unwrap(), Move::Pass);
        assert_eq!(Move::from_sgf("tt", 9).unwrap(), Move::Pass);
        assert_eq!(Move::from_sgf("tt", 19).unwrap(), Move::Pass);
        assert_eq!(
            Move::from_sgf("cg", 9).unwrap(),
            Move::Play(Point::from_rc(6, 2).unwrap())
        );
        assert_eq!(
            Move::from_sgf("jj", 9),
            Err(CoordError::OffBoard { row: 9, col: 9 })
        );
        assert!(matches!(Move::from_sgf("a", 9), Err(CoordError::BadSgf(_))));
        assert!(matches!(
            Move::from_sgf("A1", 9),
            Err(CoordError::BadSgf(_))
        ));
        assert!(Point::from_index(81).is_err());
    }
}
