//! Who won a game and which player played black, as the arena's files write them
//! (`games.csv`'s `winner` and `black_player` columns): below the game runner and the
//! records, which both read them.

use std::fmt;
use std::str::FromStr;

use crate::rules::Color;

/// Who won a game: parsed once from the texts the arena's files hold (`B`, `W`, `draw`),
/// and written back the same way (the `winner` column of `games.csv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String")]
pub enum Winner {
    #[serde(rename = "B")]
    Black,
    #[serde(rename = "W")]
    White,
    #[serde(rename = "draw")]
    Draw,
}

/// A `winner` cell that is not `B`, `W` or `draw` (a row the runner never writes), named by
/// its column and value.
impl TryFrom<String> for Winner {
    type Error = String;
    fn try_from(s: String) -> Result<Winner, String> {
        s.parse()
            .map_err(|_| format!("winner {s:?} is not B, W or draw"))
    }
}

/// A winner against the column's text (`row.winner == "B"`).
impl PartialEq<&str> for Winner {
    fn eq(&self, text: &&str) -> bool {
        self.as_str() == *text
    }
}

/// One of a match's two players: `A` plays the `--black` spec, `B` the `--white` one (with
/// `--alternate` they change colours each game), as `games.csv`'s `black_player` column
/// names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String")]
pub enum Side {
    A,
    B,
}

impl Side {
    /// The column's text: `A` or `B`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::A => "A",
            Side::B => "B",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A side against the column's text (`row.black_player == "A"`).
impl PartialEq<&str> for Side {
    fn eq(&self, text: &&str) -> bool {
        self.as_str() == *text
    }
}

/// A `black_player` cell that is neither `A` nor `B`, named by its column and value.
impl TryFrom<String> for Side {
    type Error = String;
    fn try_from(s: String) -> Result<Side, String> {
        match s.as_str() {
            "A" => Ok(Side::A),
            "B" => Ok(Side::B),
            _ => Err(format!("black_player {s:?} is neither A nor B")),
        }
    }
}

impl Winner {
    /// The winner of a counted game with black's area margin `margin` (komi included).
    pub fn of_margin(margin: f32) -> Winner {
        if margin > 0.0 {
            Winner::Black
        } else if margin < 0.0 {
            Winner::White
        } else {
            Winner::Draw
        }
    }

    /// The text of `games.csv`'s `winner` column.
    pub fn as_str(self) -> &'static str {
        match self {
            Winner::Black => "B",
            Winner::White => "W",
            Winner::Draw => "draw",
        }
    }

    /// The code of a dataset record's `winner` byte (0 for a draw).
    pub fn code(self) -> u8 {
        match self {
            Winner::Black => 1,
            Winner::White => 2,
            Winner::Draw => 0,
        }
    }

    /// The winner a GTP `final_score` answer names (`B+3.5`, `W+R`, `0`), if any.
    pub fn from_gtp_score(text: &str) -> Option<Winner> {
        let t = text.trim().to_ascii_uppercase();
        if t.starts_with("B+") {
            Some(Winner::Black)
        } else if t.starts_with("W+") {
            Some(Winner::White)
        } else if t == "0" || t == "DRAW" || t == "JIGO" {
            Some(Winner::Draw)
        } else {
            None
        }
    }
}

impl From<Color> for Winner {
    fn from(c: Color) -> Winner {
        match c {
            Color::Black => Winner::Black,
            Color::White => Winner::White,
        }
    }
}

impl fmt::Display for Winner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Winner {
    type Err = String;
    fn from_str(s: &str) -> Result<Winner, String> {
        match s {
            "B" => Ok(Winner::Black),
            "W" => Ok(Winner::White),
            "draw" => Ok(Winner::Draw),
            other => Err(format!("winner must be B, W or draw, got {other:?}")),
        }
    }
}
