//! Endgame problems and `akushu analyze`'s positions from SGF: the game is read by the
//! project's one SGF reader (`sgf::parse_record`: the spec's text encodings, board size,
//! one komi range, setup stones `AB`/`AW`/`AE` in any node before the first move, `PL`,
//! one move per node), so a file means here what it means to `dataset build` and GTP
//! `loadsgf`. Problems add one property, the proven answer `AK` (black's area margin with
//! komi, e.g. `AK[3]` or `AK[-2.5]`), read from the root.

use std::path::Path;

use sgf_parse::go::{self, Prop};
use thiserror::Error;

use crate::rules::{Board, Color, Move};
use crate::sgf::parse_record;
use crate::sgf::replay::initial_board;

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

impl Problem {
    /// Parses an SGF record's bytes; `path` names the source in errors.
    pub fn parse(bytes: impl AsRef<[u8]>, path: &str) -> Result<Problem, ProblemError> {
        let bytes = bytes.as_ref();
        let bad = |message: String| ProblemError::Bad {
            path: path.to_string(),
            message,
        };
        let name = Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.to_string());
        let rec = parse_record(bytes, &name, path).map_err(|e| bad(e.to_string()))?;
        let board = initial_board(&rec).map_err(|e| bad(e.to_string()))?;
        Ok(Problem {
            name,
            board,
            to_move: rec.first_player.unwrap_or(Color::Black),
            komi: rec.komi.unwrap_or(0.0),
            answer: answer(bytes).map_err(bad)?,
            moves: rec.moves,
        })
    }

    /// Reads a problem file (a game of a packed games folder from its archive).
    pub fn load(path: &Path) -> Result<Problem, ProblemError> {
        use std::io::Read;
        let io = |source| ProblemError::Io {
            path: path.display().to_string(),
            source,
        };
        // At most the record size limit: `/dev/zero` or a huge file is refused, not loaded.
        let limit = crate::sgf::source::MAX_RECORD_BYTES;
        let mut bytes = Vec::new();
        if crate::util::pack::packed_location(path).is_some() {
            bytes = crate::util::pack::read_game_file(path).map_err(io)?;
        } else {
            std::fs::File::open(path)
                .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
                .map_err(io)?;
        }
        if bytes.len() as u64 > limit {
            return Err(ProblemError::Bad {
                path: path.display().to_string(),
                message: format!("larger than {limit} bytes: not a game record"),
            });
        }
        Problem::parse(&bytes, &path.display().to_string())
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

/// The root's `AK` (the proven answer), if any, from a record `parse_record` has accepted.
fn answer(bytes: &[u8]) -> Result<Option<f32>, String> {
    let text = crate::sgf::decode::decode(bytes).text;
    let Some(root) = go::parse(&text).ok().and_then(|t| t.into_iter().next()) else {
        return Ok(None);
    };
    for prop in root.properties() {
        if let Prop::Unknown(id, values) = prop
            && id == "AK"
        {
            let v = values.first().map(|s| s.trim()).unwrap_or("");
            return match v.parse::<f32>() {
                Ok(a) if a.is_finite() => Ok(Some(a)),
                _ => Err(format!("AK[{v}] is not a number")),
            };
        }
    }
    Ok(None)
}
