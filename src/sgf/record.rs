//! One game record read from SGF: root metadata, setup stones and the main line.
//!
//! Parsing uses the `sgf-parse` crate, with its known 4.2.8 pitfalls handled here:
//! `B[tt]` arrives as the point (19,19) and is a pass; points are not checked against the
//! board size; `KM[6,5]`, `KM[7 points]` and `HA[1]` arrive as `Invalid` and are recovered
//! from the raw values; FF[3] `Komi[5.5]` arrives as `K` (lower-case letters dropped);
//! `AB`/`AW` are unordered sets (sorted here so results are deterministic); lenient parsing
//! returns an empty tree for garbage, so a record must contain at least one move or setup
//! stone to count as recovered.

use std::collections::HashSet;

use serde::Serialize;
use sgf_parse::go::{self, Prop};
use sgf_parse::{ParseOptions, SgfNode};
use thiserror::Error;

use super::decode;
use super::props::{GameResult, parse_handicap, parse_komi, parse_rank};
use crate::rules::{Color, Move, N, Point};
use crate::rules::{MAX_KOMI, komi_in_range};

/// Why a record cannot be used. The `Display` text is the skip reason in manifests, and
/// [`SgfError::kind`] is the short key skip counts are grouped by.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SgfError {
    #[error("SGF syntax error: {0}")]
    Syntax(String),
    #[error("no game tree in the file")]
    NoGame,
    #[error("not a Go record (GM[{0}])")]
    NotGo(i64),
    #[error("board size {0} (akushu reads 9x9 only)")]
    BoardSize(String),
    #[error("move {number}: {color}[{text}] is not a point on the 9x9 board")]
    OffBoard {
        number: usize,
        color: char,
        text: String,
    },
    #[error("move {number}: node holds more than one move")]
    TwoMoves { number: usize },
    #[error("setup stones (AB/AW/AE) after move {number}")]
    SetupAfterMoves { number: usize },
    #[error("setup point {0:?} is not on the 9x9 board")]
    BadSetup(String),
    #[error("setup point {0} is both black (AB) and white (AW)")]
    SetupConflict(String),
    #[error(
        "komi KM[{0}] is not a number of points in -{MAX_KOMI}..={MAX_KOMI} (the range accepted everywhere)"
    )]
    BadKomi(String),
    #[error("garbage: no moves or stones found")]
    Garbage,
    #[error("game tree deeper than {MAX_DEPTH} nodes")]
    TooDeep,
}

impl SgfError {
    /// A short stable key for grouping skip counts.
    pub fn kind(&self) -> &'static str {
        match self {
            SgfError::Syntax(_) => "syntax",
            SgfError::NoGame => "no-game",
            SgfError::NotGo(_) => "not-go",
            SgfError::BoardSize(_) => "board-size",
            SgfError::OffBoard { .. } => "off-board",
            SgfError::TwoMoves { .. } => "two-moves-in-node",
            SgfError::SetupAfterMoves { .. } => "setup-after-moves",
            SgfError::BadSetup(_) | SgfError::SetupConflict(_) => "bad-setup",
            SgfError::BadKomi(_) => "bad-komi",
            SgfError::Garbage => "garbage",
            SgfError::TooDeep => "too-deep",
        }
    }
}

/// A game record: metadata from the root plus the main line (first child at every node).
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    /// Game id: the file stem (e.g. `ogs_10174314`), with `#k` for the k-th game of a
    /// multi-game file or the k-th line of an `.sgfs` file.
    pub id: String,
    /// Where the record came from: a path, or `archive!member`.
    pub source: String,
    /// Board side (always 9 for records that parse; other sizes are an error).
    pub size: u8,
    pub komi: Option<f32>,
    /// Handicap from `HA` (0 when absent; `HA[1]` is 1).
    pub handicap: u8,
    pub rules: Option<String>,
    pub result: GameResult,
    /// The raw `RE` text.
    pub result_text: String,
    pub black_rank: Option<i8>,
    pub white_rank: Option<i8>,
    pub black_name: String,
    pub white_name: String,
    pub date: String,
    pub place: String,
    /// Setup stones before the first move, sorted by point.
    pub setup_black: Vec<Point>,
    pub setup_white: Vec<Point>,
    pub setup_empty: Vec<Point>,
    /// `PL` before the first move.
    pub first_player: Option<Color>,
    /// The main line.
    pub moves: Vec<(Color, Move)>,
    /// Whether some node had more than one child (variations dropped).
    pub had_variations: bool,
    /// The text encoding used, and whether the decode was lossy (text fields only).
    pub encoding: &'static str,
    pub lossy_text: bool,
    /// Whether the record came from lenient parsing of a broken file.
    pub recovered: bool,
}

impl GameRecord {
    /// What makes two records the same game, whatever their file names or metadata: board
    /// size, komi, handicap, setup stones, first player and the main line. Records with
    /// equal keys are copies of one game (de-duplication compares these bytes exactly).
    pub fn content_key(&self) -> Vec<u8> {
        let mut k = Vec::with_capacity(16 + 2 * self.moves.len());
        k.push(self.size);
        k.extend_from_slice(
            &self
                .komi
                .map_or(u32::MAX, |v| (v + 0.0).to_bits())
                .to_le_bytes(),
        );
        k.push(self.handicap);
        k.push(self.first_player.map_or(0, |c| c as u8 + 1));
        for set in [&self.setup_black, &self.setup_white, &self.setup_empty] {
            k.push(set.len() as u8);
            k.extend(set.iter().map(|p| p.index() as u8));
        }
        for (c, m) in &self.moves {
            k.push(*c as u8);
            k.push(match m {
                Move::Pass => u8::MAX,
                Move::Play(p) => p.index() as u8,
            });
        }
        k
    }

    /// Moves that are passes.
    pub fn passes(&self) -> usize {
        self.moves.iter().filter(|(_, m)| *m == Move::Pass).count()
    }
}

/// How records are parsed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ParseConfig {
    /// Recover what can be read from a broken file (truncated, bad syntax) instead of
    /// skipping it. Off by default: a broken record is skipped and counted.
    pub lenient: bool,
}

/// Deepest game tree accepted, in nodes along one path from the root. sgf-parse stores
/// every node as the child of the one before it (a plain `;B[..];W[..]` sequence as much as
/// OGS's nested one-child variations) and frees and converts the tree recursively, so a
/// hostile file 50,000 nodes deep would overflow the stack. A 9x9 game is a few hundred
/// nodes; 10,000 leaves room for long reviews and still fits a worker thread's stack.
pub const MAX_DEPTH: usize = 10_000;

/// The most nodes on one path of the game trees in `text` (property values skipped), which is
/// the recursion depth sgf-parse needs for them.
pub fn nesting_depth(text: &[u8]) -> usize {
    let (mut depth, mut max, mut in_value, mut escaped) = (0usize, 0usize, false, false);
    // The node depth at each open `(`: a variation starts from its parent's depth.
    let mut open: Vec<usize> = Vec::new();
    for &b in text {
        if in_value {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b']' => in_value = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'[' => in_value = true,
            b'(' => open.push(depth),
            b';' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' => depth = open.pop().unwrap_or(0),
            _ => {}
        }
    }
    max
}

/// Parses every game in one SGF file's bytes. `id` and `source` name the file; a file with
/// several games gives ids `id#1`, `id#2`, ... after the first.
pub fn parse_records(
    bytes: &[u8],
    id: &str,
    source: &str,
    cfg: ParseConfig,
) -> Vec<Result<GameRecord, SgfError>> {
    if nesting_depth(bytes) > MAX_DEPTH {
        return vec![Err(SgfError::TooDeep)];
    }
    let decoded = decode::decode(bytes);
    let (trees, recovered) = match go::parse(&decoded.text) {
        Ok(trees) => (trees, false),
        Err(e) if cfg.lenient => {
            let opts = ParseOptions {
                lenient: true,
                ..ParseOptions::default()
            };
            match sgf_parse::parse_with_options(&decoded.text, &opts) {
                Ok(trees) => (
                    trees
                        .into_iter()
                        .filter_map(|t| t.into_go_node().ok())
                        .collect(),
                    true,
                ),
                Err(_) => return vec![Err(SgfError::Syntax(e.to_string()))],
            }
        }
        Err(e) => return vec![Err(SgfError::Syntax(e.to_string()))],
    };
    if trees.is_empty() {
        return vec![Err(SgfError::NoGame)];
    }
    trees
        .iter()
        .enumerate()
        .map(|(k, root)| {
            let id = game_id(id, k);
            let mut rec = read_tree(root, id, source.to_string())?;
            rec.encoding = decoded.encoding;
            rec.lossy_text = decoded.lossy;
            rec.recovered = recovered;
            if recovered && rec.moves.is_empty() && rec.setup_black.is_empty() {
                return Err(SgfError::Garbage);
            }
            Ok(rec)
        })
        .collect()
}

/// The id of the `k`-th game (0-based) of a file whose id is `id`: `id`, `id#2`, `id#3`, ...
pub fn game_id(id: &str, k: usize) -> String {
    if k == 0 {
        id.to_string()
    } else {
        format!("{id}#{}", k + 1)
    }
}

/// Parses a single-game file; the first game of a collection.
pub fn parse_record(bytes: &[u8], id: &str, source: &str) -> Result<GameRecord, SgfError> {
    parse_records(bytes, id, source, ParseConfig::default())
        .into_iter()
        .next()
        .unwrap_or(Err(SgfError::NoGame))
}

fn text_of(values: &[String]) -> String {
    values.first().cloned().unwrap_or_default()
}

/// Converts an sgf-parse point to a 9x9 point, or `None` when it lies off the board.
fn point(p: &go::Point) -> Option<Point> {
    Point::from_rc(p.y as usize, p.x as usize).ok()
}

fn sorted_points(set: &HashSet<go::Point>) -> Result<Vec<Point>, SgfError> {
    let mut v = set
        .iter()
        .map(|p| point(p).ok_or_else(|| SgfError::BadSetup(format!("({}, {})", p.x, p.y))))
        .collect::<Result<Vec<_>, _>>()?;
    v.sort();
    Ok(v)
}

/// Reads the root metadata and walks the main line.
fn read_tree(root: &SgfNode<Prop>, id: String, source: String) -> Result<GameRecord, SgfError> {
    let mut rec = GameRecord {
        id,
        source,
        size: 19,
        komi: None,
        handicap: 0,
        rules: None,
        result: GameResult::UNKNOWN,
        result_text: String::new(),
        black_rank: None,
        white_rank: None,
        black_name: String::new(),
        white_name: String::new(),
        date: String::new(),
        place: String::new(),
        setup_black: Vec::new(),
        setup_white: Vec::new(),
        setup_empty: Vec::new(),
        first_player: None,
        moves: Vec::new(),
        had_variations: false,
        encoding: "UTF-8",
        lossy_text: false,
        recovered: false,
    };
    let mut size_text = None;
    let mut fallback_komi = None;
    for prop in root.properties() {
        match prop {
            Prop::GM(g) if *g != 1 => return Err(SgfError::NotGo(*g)),
            Prop::SZ((w, h)) => {
                if w != h {
                    return Err(SgfError::BoardSize(format!("{w}:{h}")));
                }
                rec.size = *w;
            }
            // NaN, infinities and absurd values would reach scores and games.csv; one range
            // for komi everywhere (servers do record joke komi such as OGS's KM[9999.5], and
            // those games replay like any other).
            Prop::KM(k) if komi_in_range(*k) => rec.komi = Some(*k as f32),
            // Shown short: `1e300`, not its three hundred digits.
            Prop::KM(k) => return Err(SgfError::BadKomi(format!("{k:e}"))),
            Prop::HA(h) => rec.handicap = (*h).clamp(0, 81) as u8,
            Prop::RE(t) => {
                rec.result_text = t.text.clone();
                rec.result = GameResult::parse(&t.text);
            }
            Prop::RU(t) => rec.rules = Some(t.text.trim().to_string()).filter(|s| !s.is_empty()),
            Prop::BR(t) => rec.black_rank = parse_rank(&t.text),
            Prop::WR(t) => rec.white_rank = parse_rank(&t.text),
            Prop::PB(t) => rec.black_name = t.text.clone(),
            Prop::PW(t) => rec.white_name = t.text.clone(),
            Prop::DT(t) => rec.date = t.text.clone(),
            Prop::PC(t) => rec.place = t.text.clone(),
            Prop::Invalid(name, values) => match name.as_str() {
                // One rule for a komi that is no number in range (`KM[nan]`, `KM[1e300]`,
                // `KM[six and a half]`): the record is refused, never read with another
                // komi. An empty `KM[]` is no komi; `KM[6,5]` and `KM[7 points]` are read.
                "KM" => {
                    let text = text_of(values);
                    if !text.trim().is_empty() {
                        let komi = parse_komi(&text).filter(|k| komi_in_range(f64::from(*k)));
                        rec.komi = Some(komi.ok_or_else(|| SgfError::BadKomi(text.clone()))?);
                    }
                }
                "HA" => rec.handicap = parse_handicap(&text_of(values)).unwrap_or(0),
                "SZ" => size_text = Some(text_of(values)),
                "RE" => {
                    rec.result_text = text_of(values);
                    rec.result = GameResult::parse(&rec.result_text);
                }
                _ => {}
            },
            // FF[3] `Komi[5.5]`: sgf-parse drops the lower-case letters.
            Prop::Unknown(name, values) if name == "K" => {
                fallback_komi = parse_komi(&text_of(values));
            }
            _ => {}
        }
    }
    if let Some(t) = size_text {
        return Err(SgfError::BoardSize(t));
    }
    if rec.size as usize != N {
        return Err(SgfError::BoardSize(rec.size.to_string()));
    }
    if rec.komi.is_none() {
        rec.komi = fallback_komi;
    }

    let mut node = Some(root);
    let mut black = HashSet::new();
    let mut white = HashSet::new();
    let mut empty = HashSet::new();
    while let Some(n) = node {
        let mut children = n.children();
        node = children.next();
        rec.had_variations |= children.next().is_some();
        let mut moved = false;
        for prop in n.properties() {
            let number = rec.moves.len() + 1;
            match prop {
                Prop::B(m) | Prop::W(m) => {
                    if moved {
                        return Err(SgfError::TwoMoves { number });
                    }
                    moved = true;
                    let color = if matches!(prop, Prop::B(_)) {
                        Color::Black
                    } else {
                        Color::White
                    };
                    let mv = match m {
                        go::Move::Pass => Move::Pass,
                        // `tt` is the FF[3] pass on boards up to 19x19.
                        go::Move::Move(p) if p.x == 19 && p.y == 19 => Move::Pass,
                        go::Move::Move(p) => {
                            Move::Play(point(p).ok_or_else(|| SgfError::OffBoard {
                                number,
                                color: color.letter(),
                                text: format!("{}{}", (b'a' + p.x) as char, (b'a' + p.y) as char),
                            })?)
                        }
                    };
                    rec.moves.push((color, mv));
                }
                Prop::Invalid(name, values) if name == "B" || name == "W" => {
                    return Err(SgfError::OffBoard {
                        number,
                        color: name.chars().next().unwrap_or('?'),
                        text: text_of(values),
                    });
                }
                Prop::AB(s) | Prop::AW(s) | Prop::AE(s) => {
                    if !rec.moves.is_empty() {
                        return Err(SgfError::SetupAfterMoves {
                            number: rec.moves.len(),
                        });
                    }
                    let target = match prop {
                        Prop::AB(_) => &mut black,
                        Prop::AW(_) => &mut white,
                        _ => &mut empty,
                    };
                    target.extend(s.iter().copied());
                }
                // OGS writes empty values inside setup lists (`AB[ee][][db]`), which
                // sgf-parse refuses as a whole: keep the real points, ignore the empties.
                Prop::Invalid(name, values) if matches!(name.as_str(), "AB" | "AW" | "AE") => {
                    if !rec.moves.is_empty() {
                        return Err(SgfError::SetupAfterMoves {
                            number: rec.moves.len(),
                        });
                    }
                    let target = match name.as_str() {
                        "AB" => &mut black,
                        "AW" => &mut white,
                        _ => &mut empty,
                    };
                    for v in values.iter().map(|v| v.trim()).filter(|v| !v.is_empty()) {
                        match Move::from_sgf(v, N) {
                            Ok(Move::Play(p)) => {
                                target.insert(go::Point {
                                    x: p.col() as u8,
                                    y: p.row() as u8,
                                });
                            }
                            _ => return Err(SgfError::BadSetup(values.join(","))),
                        }
                    }
                }
                Prop::PL(c) if rec.moves.is_empty() => {
                    rec.first_player = Some(match c {
                        sgf_parse::Color::Black => Color::Black,
                        sgf_parse::Color::White => Color::White,
                    });
                }
                _ => {}
            }
        }
    }
    // A point set up as both colours is contradictory: refuse it rather than pick one.
    if let Some(p) = black.intersection(&white).min_by_key(|p| (p.y, p.x)) {
        return Err(SgfError::SetupConflict(format!(
            "{}{}",
            (b'a' + p.x) as char,
            (b'a' + p.y) as char
        )));
    }
    // A later AE clears an earlier AB/AW on the same point.
    rec.setup_black = sorted_points(&black)?;
    rec.setup_white = sorted_points(&white)?;
    rec.setup_empty = sorted_points(&empty)?;
    rec.setup_black.retain(|p| !rec.setup_empty.contains(p));
    rec.setup_white
        .retain(|p| !rec.setup_empty.contains(p) && !rec.setup_black.contains(p));
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Result<GameRecord, SgfError> {
        parse_record(text.as_bytes(), "t", "t.sgf")
    }

    #[test]
    fn pitfalls_are_handled() {
        let r = one("(;GM[1]SZ[9]KM[6,5]HA[1]RE[B+R];B[tt];W[];B[ee])").unwrap();
        assert_eq!(r.komi, Some(6.5));
        assert_eq!(r.handicap, 1);
        assert_eq!(
            r.moves,
            vec![
                (Color::Black, Move::Pass),
                (Color::White, Move::Pass),
                (Color::Black, Move::from_gtp("E5").unwrap())
            ]
        );
        assert_eq!(one("(;SZ[9]KM[7 points])").unwrap().komi, Some(7.0));
        assert_eq!(one("(;FF[3]SZ[9]Komi[5.5])").unwrap().komi, Some(5.5));
        assert!(matches!(
            one("(;SZ[9];B[jj])"),
            Err(SgfError::OffBoard { number: 1, .. })
        ));
        assert!(matches!(
            one("(;SZ[19];B[aa])"),
            Err(SgfError::BoardSize(_))
        ));
        assert_eq!(one("(;SZ[9:9];B[aa])").unwrap().moves.len(), 1);
        assert!(
            matches!(one("(;B[aa])"), Err(SgfError::BoardSize(_))),
            "default size is 19"
        );
    }

    #[test]
    fn main_line_is_first_child() {
        let r = one("(;SZ[9](;B[ee](;W[cc])(;W[gg]))(;B[aa]))").unwrap();
        assert_eq!(r.moves.len(), 2);
        assert_eq!(r.moves[1].1, Move::from_gtp("C7").unwrap());
        assert!(r.had_variations);
    }

    #[test]
    fn deep_nesting_is_refused_not_a_crash() {
        assert_eq!(nesting_depth(b"(;C[(((]B[aa](;W[bb]))"), 2);
        assert_eq!(nesting_depth(br"(;C[\](((]B[aa])"), 1);
        let n = MAX_DEPTH + 1;
        let text = format!("(;SZ[9]{}{})", "(;B[]".repeat(n), ")".repeat(n));
        assert_eq!(
            parse_record(text.as_bytes(), "d", "d"),
            Err(SgfError::TooDeep)
        );
        let n = MAX_DEPTH - 1;
        let text = format!("(;SZ[9]{}{})", "(;B[]".repeat(n), ")".repeat(n));
        // Run where the build runs its workers: a thread with the default stack.
        let r = std::thread::spawn(move || {
            parse_record(text.as_bytes(), "d", "d").map(|r| r.moves.len())
        });
        assert_eq!(r.join().unwrap(), Ok(n));
    }

    #[test]
    fn sequences_too_deep_are_refused_not_a_crash() {
        // Plain node sequences nest as deeply as variations inside sgf-parse.
        let text = format!("(;SZ[9]{})", ";".repeat(50_000));
        let r = std::thread::spawn(move || parse_record(text.as_bytes(), "d", "d"));
        assert_eq!(r.join().unwrap(), Err(SgfError::TooDeep));
        assert_eq!(nesting_depth(b"(;SZ[9];B[aa](;W[bb];B[cc])(;W[dd]))"), 4);
    }

    #[test]
    fn contradictory_or_non_finite_values_are_errors() {
        for km in [
            "NaN", "inf", "-inf", "1e300", "1e39", "1e30", "10000.5", "-20000",
        ] {
            let r = one(&format!("(;SZ[9]KM[{km}];B[ee])"));
            assert!(matches!(r, Err(SgfError::BadKomi(_))), "{km}: {r:?}");
        }
        let r = one("(;SZ[9]AB[cc]AW[cc];B[ee])");
        assert_eq!(r, Err(SgfError::SetupConflict("cc".into())));
        assert_eq!(
            r.unwrap_err().to_string(),
            "setup point cc is both black (AB) and white (AW)"
        );
        // A komi that is no number is refused whether sgf-parse reads it or not, with the
        // same message; an empty one is no komi.
        for km in ["six and a half", "half", "nan"] {
            let r = one(&format!("(;SZ[9]KM[{km}];B[ee])"));
            assert!(matches!(r, Err(SgfError::BadKomi(_))), "{km}: {r:?}");
            assert!(
                r.unwrap_err()
                    .to_string()
                    .contains("is not a number of points"),
                "{km}"
            );
        }
        assert_eq!(one("(;SZ[9]KM[];B[ee])").unwrap().komi, None);
        let r = parse_record(b"\xEF\xBB\xBF(;SZ[9];B[ee])", "b", "b").unwrap();
        assert_eq!(r.moves.len(), 1);
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(one("this is not sgf").is_err());
        let lenient = ParseConfig { lenient: true };
        let r = parse_records(b"garbage (;", "g", "g", lenient);
        assert!(r.iter().all(|r| r.is_err()), "{r:?}");
        // Truncated: lenient recovers the moves before the cut.
        let r = parse_records(b"(;SZ[9];B[ee];W[cc];B[g", "g", "g", lenient);
        let rec = r[0].as_ref().unwrap();
        assert!(rec.recovered);
        assert_eq!(rec.moves.len(), 2);
        assert!(one("(;SZ[9];B[ee];W[cc];B[g").is_err());
    }
}
