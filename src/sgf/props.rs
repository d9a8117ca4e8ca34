//! Root-property values that need real parsing: results (`RE`), ranks (`BR`/`WR`), komi
//! (`KM`, written many ways) and handicap (`HA`).
//!
//! These parsers take the raw property text because sgf-parse rejects common real-world
//! spellings (`KM[6,5]`, `KM[7 points]`, `HA[1]`) and turns them into `Invalid` values.

use serde::{Deserialize, Serialize};

use crate::rules::Color;

/// How a game ended, as written in `RE`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultKind {
    /// Won by this many points.
    Score(f32),
    Resign,
    Time,
    Forfeit,
    /// Won, reason not given (`B+`).
    Win,
    /// Jigo / `0` / `Draw`.
    Draw,
    /// `Void` / no result (annulled).
    Void,
    /// `?`, empty or unreadable.
    Unknown,
}

/// A parsed `RE` value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameResult {
    pub winner: Option<Color>,
    pub kind: ResultKind,
}

impl GameResult {
    pub const UNKNOWN: GameResult = GameResult {
        winner: None,
        kind: ResultKind::Unknown,
    };

    /// Known and not void: a winner, or a draw.
    pub fn is_known(&self) -> bool {
        !matches!(self.kind, ResultKind::Void | ResultKind::Unknown)
    }

    /// The paper's `winner` byte: 0 unknown/draw, 1 black, 2 white.
    pub fn winner_code(&self) -> u8 {
        self.winner.map_or(0, |c| c as u8)
    }

    /// Reads `B+R`, `W+13.5`, `B+T`, `W+Time`, `B+F`, `B+Resign`, `0`, `Draw`, `Jigo`,
    /// `Void`, `?` and the like (case-insensitive, spaces ignored).
    pub fn parse(text: &str) -> GameResult {
        let t: String = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        let unknown = GameResult::UNKNOWN;
        match t.as_str() {
            "" | "?" | "unknown" => return unknown,
            "0" | "draw" | "jigo" | "b+0" | "w+0" => {
                return GameResult {
                    winner: None,
                    kind: ResultKind::Draw,
                };
            }
            "void" | "noresult" | "none" => {
                return GameResult {
                    winner: None,
                    kind: ResultKind::Void,
                };
            }
            _ => {}
        }
        let winner = match t.as_bytes()[0] {
            b'b' => Color::Black,
            b'w' => Color::White,
            _ => return unknown,
        };
        let rest = t[1..].trim_start_matches('+');
        if t.len() > 1 && !t[1..].starts_with('+') {
            return unknown;
        }
        let kind = match rest {
            "" => ResultKind::Win,
            "r" | "res" | "resign" | "resignation" => ResultKind::Resign,
            "t" | "time" => ResultKind::Time,
            "f" | "forfeit" => ResultKind::Forfeit,
            s => match s.replace(',', ".").parse::<f32>() {
                Ok(m) if m.is_finite() && m >= 0.0 => ResultKind::Score(m),
                _ => return unknown,
            },
        };
        GameResult {
            winner: Some(winner),
            kind,
        }
    }
}

/// Value for an unknown rank in a dataset position (`dataset::Position`).
pub const RANK_UNKNOWN: i8 = i8::MIN;

/// Parses a rank into akushu's numeric scale (the shared OGS index's): 1k = 0, 2k = -1,
/// ..., 50k = -49, 1d = 1, ..., 20d = 20 (OGS shows ranks above 9d); professional ranks
/// `Np` map to 20 + N. Returns `None` for `?`, empty or
/// unreadable text. Accepts `5k`, `5 kyu`, `3D`, `2d?`, `1p`, `[5k]`.
pub fn parse_rank(text: &str) -> Option<i8> {
    let t = text
        .trim()
        .trim_matches(|c| c == '[' || c == ']')
        .to_ascii_lowercase();
    let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
    let n: i32 = digits.parse().ok()?;
    let unit = t[digits.len()..]
        .trim()
        .trim_end_matches(['?', '*', '+'])
        .trim();
    let v = match unit {
        "k" | "kyu" => {
            if !(1..=50).contains(&n) {
                return None;
            }
            1 - n
        }
        "d" | "dan" => {
            if !(1..=20).contains(&n) {
                return None;
            }
            n
        }
        "p" | "pro" => {
            if !(1..=9).contains(&n) {
                return None;
            }
            20 + n
        }
        _ => return None,
    };
    Some(v as i8)
}

/// Formats a numeric rank back into `5k` / `2d` / `3p` (or `?`).
pub fn rank_text(r: i8) -> String {
    match r {
        RANK_UNKNOWN => "?".into(),
        r if r <= 0 => format!("{}k", 1 - r as i32),
        r if r <= 20 => format!("{r}d"),
        r => format!("{}p", r - 20),
    }
}

/// Reads a komi value written as `6.5`, `6,5`, `7 points`, `5.5 komi`, `-2.5`, `0`. An
/// absurd value (beyond +-500) is refused.
pub fn parse_komi(text: &str) -> Option<f32> {
    let t = text.trim().replace(',', ".");
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    let v: f32 = t[..end].parse().ok()?;
    // Some Japanese servers store komi times 100 (e.g. 650): treat as points.
    let v = if v.abs() >= 100.0 && (v * 2.0 / 100.0).fract() == 0.0 {
        v / 100.0
    } else {
        v
    };
    (v.is_finite() && v.abs() <= 500.0).then_some(v)
}

/// Reads a handicap `HA[n]` (0 and 1 both mean no handicap stones).
pub fn parse_handicap(text: &str) -> Option<u8> {
    text.trim().parse::<u32>().ok().map(|n| n.min(81) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results() {
        use ResultKind::*;
        let r = |t: &str| GameResult::parse(t);
        assert_eq!(r("B+R").kind, Resign);
        assert_eq!(r("B+R").winner, Some(Color::Black));
        assert_eq!(r("W+13.5").kind, Score(13.5));
        assert_eq!(r("W+13.5").winner, Some(Color::White));
        assert_eq!(r("B+T").kind, Time);
        assert_eq!(r("w+Time").kind, Time);
        assert_eq!(r("B+F").kind, Forfeit);
        assert_eq!(r("W+Resign").kind, Resign);
        assert_eq!(r("B+").kind, Win);
        assert_eq!(r("0").kind, Draw);
        assert_eq!(r("Jigo").kind, Draw);
        assert_eq!(r("Void").kind, Void);
        assert_eq!(r("?").kind, Unknown);
        assert_eq!(r("").kind, Unknown);
        assert_eq!(r("Bx3").kind, Unknown);
        assert_eq!(r("B+abc").kind, Unknown);
        assert!(r("B+R").is_known() && r("0").is_known());
        assert!(!r("Void").is_known() && !r("?").is_known());
        assert_eq!(r("0").winner_code(), 0);
        assert_eq!(r("W+R").winner_code(), 2);
    }

    #[test]
    fn ranks() {
        assert_eq!(parse_rank("1k"), Some(0));
        assert_eq!(parse_rank("2k"), Some(-1));
        assert_eq!(parse_rank("30k"), Some(-29));
        assert_eq!(parse_rank("1d"), Some(1));
        assert_eq!(parse_rank("3D?"), Some(3));
        assert_eq!(parse_rank("5 kyu"), Some(-4));
        assert_eq!(parse_rank("2p"), Some(22));
        assert_eq!(parse_rank("12d"), Some(12));
        assert_eq!(parse_rank("45k"), Some(-44));
        assert_eq!(parse_rank("0k"), None);
        assert_eq!(parse_rank("?"), None);
        assert_eq!(parse_rank(""), None);
        assert_eq!(parse_rank("-"), None);
        for r in [-49i8, -29, -4, 0, 1, 9, 12, 22] {
            assert_eq!(parse_rank(&rank_text(r)), Some(r));
        }
    }

    #[test]
    fn komi() {
        assert_eq!(parse_komi("6.5"), Some(6.5));
        assert_eq!(parse_komi("6,5"), Some(6.5));
        assert_eq!(parse_komi("7 points"), Some(7.0));
        assert_eq!(parse_komi("-2.5"), Some(-2.5));
        assert_eq!(parse_komi("650"), Some(6.5));
        assert_eq!(parse_komi("abc"), None);
        assert_eq!(parse_komi(""), None);
    }
}
