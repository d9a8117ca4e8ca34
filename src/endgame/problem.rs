//! A tiny private SGF loader for endgame problems and `akushu analyze` (the project's full
//! SGF reader lives elsewhere; this reads only what problems need): board size 9, setup
//! stones `AB`/`AW`, side to move `PL`, komi `KM`, the proven answer `AK` (black's area
//! margin with komi, e.g. `AK[3]` or `AK[-2.5]`), and the main line's `B`/`W` moves.

use std::path::Path;

use sgf_parse::go::{self, Prop};
use thiserror::Error;

use crate::rules::{Board, Color, Move, N, Point};

/// Why a problem file could not be read.
#[derive(Debug, Error)]
pub enum ProblemError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Bad { path: String, message: String },
}

/// An endgame problem (or any SGF record's start position and main line).
#[derive(Debug, Clone)]
pub struct Problem {
    /// File stem, e.g. `y01`.
    pub name: String,
    /// The set-up position.
    pub board: Board,
    /// Side to move (`PL`, else black).
    pub to_move: Color,
    /// Komi (`KM`, else 0).
    pub komi: f32,
    /// The proven answer (`AK`): black's area margin with komi under best play.
    pub answer: Option<f32>,
    /// Main-line moves after the setup.
    pub moves: Vec<(Color, Move)>,
}

fn point(p: &go::Point) -> Option<Point> {
    Point::from_rc(p.y as usize, p.x as usize).ok()
}

impl Problem {
    /// Parses SGF text; `path` only names the source in errors.
    pub fn parse(text: &str, path: &str) -> Result<Problem, ProblemError> {
        let bad = |message: String| ProblemError::Bad {
            path: path.to_string(),
            message,
        };
        // A UTF-8 byte-order mark is not part of the SGF text.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if crate::sgf::record::nesting_depth(text.as_bytes()) > crate::sgf::record::MAX_DEPTH {
            return Err(bad(crate::sgf::SgfError::TooDeep.to_string()));
        }
        let trees = go::parse(text).map_err(|e| bad(format!("SGF parse error: {e}")))?;
        let root = trees.first().ok_or_else(|| bad("no game tree".into()))?;
        let (mut black, mut white) = (Vec::new(), Vec::new());
        let mut to_move = None;
        let mut komi = 0.0f32;
        let mut answer = None;
        let mut moves = Vec::new();
        for (depth, node) in root.main_variation().enumerate() {
            for prop in node.properties() {
                match prop {
                    Prop::SZ((w, h)) if (*w as usize, *h as usize) != (N, N) => {
                        return Err(bad(format!("board size {w}x{h}, only 9x9 is supported")));
                    }
                    Prop::AB(ps) | Prop::AW(ps) if depth == 0 => {
                        let list = if matches!(prop, Prop::AB(_)) {
                            &mut black
                        } else {
                            &mut white
                        };
                        for p in ps {
                            list.push(
                                point(p).ok_or_else(|| {
                                    bad(format!("setup point {p:?} off the board"))
                                })?,
                            );
                        }
                    }
                    Prop::PL(c) if depth == 0 => {
                        to_move = Some(match c {
                            sgf_parse::Color::Black => Color::Black,
                            sgf_parse::Color::White => Color::White,
                        })
                    }
                    Prop::KM(k) if k.is_finite() => komi = *k as f32,
                    Prop::KM(k) => return Err(bad(format!("KM[{k}] is not a finite komi"))),
                    Prop::B(m) | Prop::W(m) => {
                        let c = if matches!(prop, Prop::B(_)) {
                            Color::Black
                        } else {
                            Color::White
                        };
                        let mv = match m {
                            go::Move::Pass => Move::Pass,
                            go::Move::Move(p) => match point(p) {
                                Some(q) => Move::Play(q),
                                None => Move::Pass, // `tt` on 9x9 is a pass (FF[3])
                            },
                        };
                        moves.push((c, mv));
                    }
                    Prop::Unknown(id, values) if id == "AK" => {
                        let v = values.first().map(|s| s.trim()).unwrap_or("");
                        answer = Some(
                            v.parse::<f32>()
                                .map_err(|_| bad(format!("AK[{v}] is not a number")))?,
                        );
                    }
                    _ => {}
                }
            }
        }
        let mut board = Board::new();
        board
            .setup(&black, &white, &[])
            .map_err(|e| bad(format!("setup stones: {e}")))?;
        let name = Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.to_string());
        Ok(Problem {
            name,
            board,
            to_move: to_move.unwrap_or(Color::Black),
            komi,
            answer,
            moves,
        })
    }

    /// Reads a problem file.
    pub fn load(path: &Path) -> Result<Problem, ProblemError> {
        use std::io::Read;
        let io = |source| ProblemError::Io {
            path: path.display().to_string(),
            source,
        };
        // At most the record size limit: `/dev/zero` or a huge file is refused, not loaded.
        let limit = crate::sgf::source::MAX_RECORD_BYTES;
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
            .map_err(io)?;
        if bytes.len() as u64 > limit {
            return Err(ProblemError::Bad {
                path: path.display().to_string(),
                message: format!("larger than {limit} bytes: not a game record"),
            });
        }
        let text = String::from_utf8(bytes)
            .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        Problem::parse(&text, &path.display().to_string())
    }

    /// The position after the first `n` main-line moves, with the side to move after them.
    /// Fails naming the illegal move, or when the main line is shorter than `n`.
    pub fn position_after(&self, n: usize) -> Result<(Board, Color), String> {
        if n > self.moves.len() {
            return Err(format!(
                "move {n} asked for, but the main line has {} moves",
                self.moves.len()
            ));
        }
        let mut board = self.board;
        let mut to_move = self.to_move;
        for (k, &(c, m)) in self.moves.iter().take(n).enumerate() {
            board
                .play_move(c, m)
                .map_err(|e| format!("move {} ({} {m}): {e}", k + 1, c.letter()))?;
            to_move = c.opponent();
        }
        Ok((board, to_move))
    }
}
